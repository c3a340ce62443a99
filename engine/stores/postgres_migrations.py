"""The SQL of a PostgreSQL store's schema versions: tables, indexes and move routines, one
forward migration per version. Data only; `engine.stores.postgres_schema` applies them.
"""

from __future__ import annotations

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, """
CREATE TABLE {s}.handoff_records (
    record_id text PRIMARY KEY,
    seq bigserial NOT NULL,              -- insertion order: breaks ties of created_at
    status text NOT NULL,
    from_agent text NOT NULL,
    to_agent text NOT NULL,
    created_at timestamptz NOT NULL,
    deadline timestamptz,
    version integer NOT NULL,
    body text NOT NULL                   -- the record's JSON exactly as the engine wrote it
);
CREATE INDEX handoff_records_created ON {s}.handoff_records (created_at, seq);
CREATE INDEX handoff_records_status ON {s}.handoff_records (status, created_at, seq);
CREATE INDEX handoff_records_from ON {s}.handoff_records (from_agent, created_at, seq);
CREATE INDEX handoff_records_to ON {s}.handoff_records (to_agent, created_at, seq);
CREATE INDEX handoff_records_deadline ON {s}.handoff_records (deadline)
    WHERE deadline IS NOT NULL AND status IN ('pending', 'accepted', 'in_progress');
"""),
    (2, """
CREATE TABLE {s}.handoff_moves (
    record_id text NOT NULL,
    position integer NOT NULL,           -- index in the record's history
    from_status text,
    to_status text NOT NULL,
    trigger text NOT NULL,
    at timestamptz NOT NULL,
    reason text NOT NULL,
    actor text NOT NULL,
    PRIMARY KEY (record_id, position)
);
INSERT INTO {s}.handoff_moves
SELECT r.record_id, e.n - 1, e.m->>'from', e.m->>'to', e.m->>'trigger',
       (e.m->>'at')::timestamptz, e.m->>'reason', e.m->>'actor'
FROM {s}.handoff_records r,
     json_array_elements(r.body::json->'history') WITH ORDINALITY AS e(m, n);
"""),
    (3, """
-- Moves several records at once, each at most once, in the order given (writers lock rows in
-- id order: no deadlock); returns the 1-based positions of the moves that applied (the others
-- found another version: a conflict). Cheaper for the server than one statement per move.
CREATE FUNCTION {s}.handoff_move_many(
    statuses text[], versions integer[], bodies text[], ids text[], expected integer[],
    positions integer[], from_statuses text[], to_statuses text[], triggers text[],
    ats timestamptz[], reasons text[], actors text[]
) RETURNS SETOF integer LANGUAGE plpgsql AS $$
BEGIN
    FOR k IN 1 .. cardinality(ids) LOOP
        UPDATE {s}.handoff_records
        SET status = statuses[k], version = versions[k], body = bodies[k]
        WHERE record_id = ids[k] AND version = expected[k];
        IF FOUND THEN
            INSERT INTO {s}.handoff_moves
                (record_id, position, from_status, to_status, trigger, at, reason, actor)
            VALUES (ids[k], positions[k], from_statuses[k], to_statuses[k], triggers[k], ats[k],
                    reasons[k], actors[k])
            ON CONFLICT DO NOTHING;
            RETURN NEXT k;
        END IF;
    END LOOP;
END
$$;
"""),
    (4, """
-- Moves several records at once like handoff_move_many, commits, and only then (the moves
-- durable) sends the change notifications of the moves that applied, in a transaction that does
-- not wait for the disk: one round trip for the whole batch. `payloads` holds one notification
-- per move, newline-separated (an empty one sends nothing). `written`: the 1-based positions
-- of the moves that applied; `notified`: false if sending failed (the moves stay durable; the
-- caller sends the notifications again).
CREATE PROCEDURE {s}.handoff_move_notify(
    statuses text[], versions integer[], bodies text[], ids text[], expected integer[],
    positions integer[], from_statuses text[], to_statuses text[], triggers text[],
    ats timestamptz[], reasons text[], actors text[], channel text, payloads text,
    INOUT written integer[] DEFAULT NULL, INOUT notified boolean DEFAULT NULL
) LANGUAGE plpgsql AS $$
DECLARE
    notes text[];
BEGIN
    written := '{}';
    FOR k IN 1 .. cardinality(ids) LOOP
        UPDATE {s}.handoff_records
        SET status = statuses[k], version = versions[k], body = bodies[k]
        WHERE record_id = ids[k] AND version = expected[k];
        IF FOUND THEN
            INSERT INTO {s}.handoff_moves
                (record_id, position, from_status, to_status, trigger, at, reason, actor)
            VALUES (ids[k], positions[k], from_statuses[k], to_statuses[k], triggers[k], ats[k],
                    reasons[k], actors[k])
            ON CONFLICT DO NOTHING;
            written := written || k;
        END IF;
    END LOOP;
    COMMIT;
    notified := true;
    IF cardinality(written) > 0 THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        notes := string_to_array(payloads, E'\\n');
        BEGIN
            PERFORM pg_notify(channel, notes[k]) FROM unnest(written) AS k WHERE notes[k] <> '';
        EXCEPTION WHEN OTHERS THEN
            notified := false;
        END;
    END IF;
END
$$;
-- handoff_move_many stays: replicas still running the engine of version 3 keep writing with it
-- (and notifying after it) until a rolling upgrade reaches them.
"""),
    (5, """
-- A move may be a HOT update (no new entry in any index: about half the server's work of an
-- update that adds one to each) only if no indexed column, in a key or a predicate, changes
-- value and the new row version fits on the row's page. Every move changes `status`, so no
-- index names it: the sweeper reads records in creation order and filters on `status` in the
-- rows it reads, as `handoff records --status` does.
DROP INDEX {s}.handoff_records_status;
DROP INDEX {s}.handoff_records_deadline;
CREATE INDEX handoff_records_deadline ON {s}.handoff_records (deadline)
    WHERE deadline IS NOT NULL;
-- Inserts leave a fifth of each page free, room for the new version of a moved row (about a
-- record's size) beside the old. Pages filled before version 5 stay full until moves and
-- vacuum free room on them (or VACUUM FULL or CLUSTER rewrites them).
ALTER TABLE {s}.handoff_records SET (fillfactor = 80);
"""),
    (6, """
-- The sweeper's two questions, each answered by a small partial index instead of a read of
-- every record: `pending_since` is `created_at` while the record is pending, `live_deadline` its
-- `deadline` while it is pending, accepted or in progress; NULL otherwise. Every writer sets both
-- from the new status (no trigger: it would cost every move). A move that changes neither (to
-- in_progress; to a terminal status without a deadline) can still be a HOT update.
ALTER TABLE {s}.handoff_records ADD COLUMN pending_since timestamptz,
    ADD COLUMN live_deadline timestamptz;
UPDATE {s}.handoff_records
SET pending_since = CASE WHEN status = 'pending' THEN created_at END,
    live_deadline = CASE WHEN status IN ('pending', 'accepted', 'in_progress') THEN deadline END
WHERE status IN ('pending', 'accepted', 'in_progress');
DROP INDEX {s}.handoff_records_deadline;
CREATE INDEX handoff_records_pending_since ON {s}.handoff_records (pending_since)
    WHERE pending_since IS NOT NULL;
CREATE INDEX handoff_records_live_deadline ON {s}.handoff_records (live_deadline)
    WHERE live_deadline IS NOT NULL;
-- A live record inserted without the columns (by a replica still on an older engine during a
-- rolling upgrade) gets them here, so the sweepers still see it. The WHEN clause keeps this
-- engine's inserts (columns set) from calling the function; moves never fire it.
CREATE FUNCTION {s}.handoff_sweep_columns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.pending_since := CASE WHEN NEW.status = 'pending' THEN NEW.created_at END;
    NEW.live_deadline := NEW.deadline;
    RETURN NEW;
END
$$;
CREATE TRIGGER handoff_records_sweep_columns BEFORE INSERT ON {s}.handoff_records
    FOR EACH ROW WHEN (NEW.status IN ('pending', 'accepted', 'in_progress')
                       AND NEW.pending_since IS NULL AND NEW.live_deadline IS NULL)
    EXECUTE FUNCTION {s}.handoff_sweep_columns();
-- Both move routines keep their signatures, so replicas still on an older engine (calling
-- either) set the columns too from now on.
CREATE OR REPLACE FUNCTION {s}.handoff_move_many(
    statuses text[], versions integer[], bodies text[], ids text[], expected integer[],
    positions integer[], from_statuses text[], to_statuses text[], triggers text[],
    ats timestamptz[], reasons text[], actors text[]
) RETURNS SETOF integer LANGUAGE plpgsql AS $$
BEGIN
    FOR k IN 1 .. cardinality(ids) LOOP
        UPDATE {s}.handoff_records
        SET status = statuses[k], version = versions[k], body = bodies[k],
            pending_since = CASE WHEN statuses[k] = 'pending' THEN created_at END,
            live_deadline = CASE WHEN statuses[k] IN ('pending', 'accepted', 'in_progress')
                                 THEN deadline END
        WHERE record_id = ids[k] AND version = expected[k];
        IF FOUND THEN
            INSERT INTO {s}.handoff_moves
                (record_id, position, from_status, to_status, trigger, at, reason, actor)
            VALUES (ids[k], positions[k], from_statuses[k], to_statuses[k], triggers[k], ats[k],
                    reasons[k], actors[k])
            ON CONFLICT DO NOTHING;
            RETURN NEXT k;
        END IF;
    END LOOP;
END
$$;
CREATE OR REPLACE PROCEDURE {s}.handoff_move_notify(
    statuses text[], versions integer[], bodies text[], ids text[], expected integer[],
    positions integer[], from_statuses text[], to_statuses text[], triggers text[],
    ats timestamptz[], reasons text[], actors text[], channel text, payloads text,
    INOUT written integer[] DEFAULT NULL, INOUT notified boolean DEFAULT NULL
) LANGUAGE plpgsql AS $$
DECLARE
    notes text[];
BEGIN
    written := '{}';
    FOR k IN 1 .. cardinality(ids) LOOP
        UPDATE {s}.handoff_records
        SET status = statuses[k], version = versions[k], body = bodies[k],
            pending_since = CASE WHEN statuses[k] = 'pending' THEN created_at END,
            live_deadline = CASE WHEN statuses[k] IN ('pending', 'accepted', 'in_progress')
                                 THEN deadline END
        WHERE record_id = ids[k] AND version = expected[k];
        IF FOUND THEN
            INSERT INTO {s}.handoff_moves
                (record_id, position, from_status, to_status, trigger, at, reason, actor)
            VALUES (ids[k], positions[k], from_statuses[k], to_statuses[k], triggers[k], ats[k],
                    reasons[k], actors[k])
            ON CONFLICT DO NOTHING;
            written := written || k;
        END IF;
    END LOOP;
    COMMIT;
    notified := true;
    IF cardinality(written) > 0 THEN
        PERFORM set_config('synchronous_commit', 'off', true);
        notes := string_to_array(payloads, E'\\n');
        BEGIN
            PERFORM pg_notify(channel, notes[k]) FROM unnest(written) AS k WHERE notes[k] <> '';
        EXCEPTION WHEN OTHERS THEN
            notified := false;
        END;
    END IF;
END
$$;
"""),
)
"""Forward migrations, applied in order; each version's SQL runs once, in one transaction."""
