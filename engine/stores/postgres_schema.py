"""A PostgreSQL store's schema: its tables and write function, forward migrations and version
check, and the one boundary where psycopg errors become `StoreError`s naming the database and
the problem.

No record logic here; `engine.stores.postgres` builds the store on top.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout

from engine.errors import StoreError

RECORDS = "handoff_records"
MOVES = "handoff_moves"
VERSIONS = "handoff_schema"

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
)
"""Forward migrations, applied in order; each version's SQL runs once, in one transaction."""

SCHEMA_VERSION = MIGRATIONS[-1][0]


def prepare(
    conn: psycopg.Connection, schema: str, location: str, *, readonly: bool, create: bool
) -> None:
    """Check the store in `schema` and bring it up to `SCHEMA_VERSION` (unless `readonly`).

    Replicas starting together take turns on an advisory lock; only one migrates.
    """
    with conn.transaction():
        if not readonly:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"handoff {schema}",))
        version = _version(conn, schema, location)
        if version > SCHEMA_VERSION:
            detail = f"store schema version {version} is newer than this engine ({SCHEMA_VERSION})"
            raise StoreError(location, detail)
        if version == SCHEMA_VERSION:
            return
        if version == 0 and (readonly or not create):
            raise StoreError(location, f"no handoff store in schema {schema!r}")
        if readonly:
            raise StoreError(location, f"store schema version {version} is older than this"
                             f" engine ({SCHEMA_VERSION}); open it read-write once to migrate it")
        _migrate(conn, schema, version)


def _version(conn: psycopg.Connection, schema: str, location: str) -> int:
    """The schema version of the store in `schema`; 0 if there is none yet."""
    tables = conn.execute(
        "SELECT to_regclass(%s), to_regclass(%s)",
        (f'"{schema}".{VERSIONS}', f'"{schema}".{RECORDS}'),
    ).fetchone()
    assert tables is not None
    if tables[0] is None:
        if tables[1] is not None:
            detail = f"not a handoff store: {schema}.{RECORDS} has no version table"
            raise StoreError(location, detail)
        return 0
    row = conn.execute(f'SELECT max(version) FROM "{schema}".{VERSIONS}').fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def _migrate(conn: psycopg.Connection, schema: str, current: int) -> None:
    quoted = f'"{schema}"'
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {quoted}.{VERSIONS} (version integer PRIMARY KEY,"
        " applied_at timestamptz NOT NULL DEFAULT now())"
    )
    for version, statements in MIGRATIONS:
        if version > current:
            conn.execute(statements.replace("{s}", quoted).encode())
            conn.execute(f"INSERT INTO {quoted}.{VERSIONS} (version) VALUES (%s)", (version,))


def explain(error: Exception, *, lost: bool = False) -> str:
    """What went wrong, in words an operator can act on; `lost`: the session died meanwhile."""
    if isinstance(error, PoolTimeout):
        return f"no database connection in time (pool exhausted or server down): {error}"
    text = str(error).strip()
    first_line = text.splitlines()[0] if text else type(error).__name__
    if lost or isinstance(error, (pg_errors.AdminShutdown, pg_errors.CrashShutdown)):
        return f"lost the connection to the database ({first_line}); the next call reconnects"
    if isinstance(error, pg_errors.QueryCanceled):
        return f"a statement ran past statement_timeout_s and was cancelled ({first_line})"
    if isinstance(error, pg_errors.ReadOnlySqlTransaction):
        return "the store is read-only"
    if isinstance(error, pg_errors.UndefinedTable):
        return f"the store's tables are missing ({first_line})"
    if isinstance(error, psycopg.OperationalError):
        return f"cannot reach the database: {first_line}"
    return f"PostgreSQL error: {first_line}"


@contextmanager
def boundary(location: str) -> Iterator[None]:
    """Translate any psycopg or pool error raised inside into a `StoreError` for `location`."""
    try:
        yield
    except (psycopg.Error, PoolTimeout) as error:
        raise StoreError(location, explain(error)) from error
