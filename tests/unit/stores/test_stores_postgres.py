"""PostgresStore specifics: schema versions and migrations, history rows, read-only and missing
stores, timeouts, lost connections, the pool size and the change feed's reconnects."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from engine.errors import StoreError
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.stores import RecordQuery
from engine.stores.changes import RecordChange
from tests.extras import need
from tests.patience import HANG_S

psycopg = need("psycopg", extra="postgres", group="postgres")

from engine.stores import PostgresStore  # noqa: E402 (imports psycopg)
from engine.stores.postgres_migrations import MIGRATIONS  # noqa: E402
from engine.stores.postgres_notify import Notifier  # noqa: E402
from engine.stores.postgres_schema import SCHEMA_VERSION  # noqa: E402

MakeRecord = Callable[..., HandoffRecord]


@contextmanager
def admin(url: str) -> Iterator[Any]:
    """A plain autocommit connection to the test database, outside any store."""
    with psycopg.connect(url.partition("?")[0], autocommit=True) as conn:
        yield conn


def schema_of(url: str) -> str:
    return url.rpartition("schema=")[2]


def store_at_version(conn: Any, url: str, version: int) -> str:
    """Make on `conn` the schema (returned) an engine with migrations 1 to `version` left."""
    schema = schema_of(url)
    conn.execute(f'CREATE SCHEMA "{schema}"')
    conn.execute(f'CREATE TABLE "{schema}".handoff_schema (version integer PRIMARY KEY,'
                 " applied_at timestamptz NOT NULL DEFAULT now())")
    for number, statements in MIGRATIONS[:version]:
        conn.execute(statements.replace("{s}", f'"{schema}"').encode())
        conn.execute(f'INSERT INTO "{schema}".handoff_schema (version) VALUES (%s)', (number,))
    return schema


def history_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    rows: dict[str, list[tuple[Any, ...]]] = {}
    with admin(url) as conn:
        for record_id, *move in conn.execute(
            f'SELECT record_id, from_status, to_status, trigger, at, reason, actor'
            f' FROM "{schema_of(url)}".handoff_moves ORDER BY record_id, position'
        ):
            rows.setdefault(record_id, []).append(tuple(move))
    return rows


def as_rows(record: HandoffRecord) -> list[tuple[Any, ...]]:
    return [
        (m.from_.value if m.from_ else None, m.to.value, m.trigger, m.at, m.reason, m.actor)
        for m in record.history
    ]


def terminate(url: str, origin: str, role: str) -> int:
    """Kill this store's backends of one role (pool, listener) as an operator would."""
    with admin(url) as conn:
        killed = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE application_name = %s", (f"handoff-engine {role} {origin}",),
        ).fetchone()
    return int(killed[0])


def test_schema_is_versioned_and_history_rows_mirror_the_records(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        manager = HandoffManager(store=store, actor="ops")
        request = HandoffRequest(from_agent="a", to_agent="b", task_description="t")
        ids = [manager.create_handoff(request).record_id for _ in range(3)]
        manager.accept(ids[0])
        manager.complete(ids[0], {"n": 1})
        manager.reject(ids[1], "busy")
        records = {record.record_id: record for record in store.query()}
    with admin(postgres_url) as conn:
        versions = conn.execute(
            f'SELECT version FROM "{schema_of(postgres_url)}".handoff_schema ORDER BY version'
        ).fetchall()
    assert [v for (v,) in versions] == [version for version, _ in MIGRATIONS]
    assert versions[-1][0] == SCHEMA_VERSION
    assert history_rows(postgres_url) == {rid: as_rows(r) for rid, r in records.items()}


def test_a_version_1_store_migrates_forward_and_backfills_history(
    postgres_url: str, record: MakeRecord
) -> None:
    schema = schema_of(postgres_url)
    old = record(1, status="accepted", history=[
        {"from": None, "to": "pending", "trigger": "create", "at": "2026-01-01T12:01:00Z"},
        {"from": "pending", "to": "accepted", "trigger": "accept", "at": "2026-01-01T12:02:00Z",
         "actor": "b"},
    ], version=2)
    with admin(postgres_url) as conn:
        store_at_version(conn, postgres_url, 1)
        conn.execute(
            f'INSERT INTO "{schema}".handoff_records (record_id, status, from_agent, to_agent,'
            " created_at, version, body) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            ("h-1", "accepted", "a1", "b1", old.created_at, 2, old.model_dump_json()),
        )
    with pytest.raises(StoreError, match="version 1 is older than this engine"):
        PostgresStore(postgres_url, readonly=True)
    with PostgresStore(postgres_url) as store:
        assert store.get("h-1") == old
    assert history_rows(postgres_url) == {"h-1": as_rows(old)}


def test_a_version_3_store_migrates_to_moves_that_notify_in_the_same_call(
    postgres_url: str, record: MakeRecord
) -> None:
    with admin(postgres_url) as conn:
        schema = store_at_version(conn, postgres_url, 3)
    with PostgresStore(postgres_url) as store:
        store.put_many([record(1)])
        moved = record(1, version=2, status="accepted", history=[
            *record(1).history,
            {"from": "pending", "to": "accepted", "trigger": "accept",
             "at": record(1).created_at, "actor": "b"},
        ])
        store.replace(moved, expected_version=1)
        assert store.get("h-1") == moved
    with admin(postgres_url) as conn:
        routines = conn.execute(
            "SELECT proname, prokind FROM pg_proc WHERE pronamespace = %s::regnamespace"
            " ORDER BY proname", (f'"{schema}"',),
        ).fetchall()
    # version 3's function stays for replicas not yet upgraded in a rolling upgrade
    assert routines == [("handoff_move_many", "f"), ("handoff_move_notify", "p"),
                        ("handoff_sweep_columns", "f")]  # the last: version 6's insert trigger
    assert history_rows(postgres_url) == {"h-1": as_rows(moved)}


def test_newer_and_foreign_schemas_are_refused(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    schema = schema_of(postgres_url)
    with admin(postgres_url) as conn:
        conn.execute(f'INSERT INTO "{schema}".handoff_schema (version) VALUES (%s)',
                     (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer than this engine") as caught:
        PostgresStore(postgres_url)
    assert caught.value.path.endswith(f"?schema={schema}")
    with admin(postgres_url) as conn:
        conn.execute(f'DROP TABLE "{schema}".handoff_schema')
    with pytest.raises(StoreError, match="not a handoff store"):
        PostgresStore(postgres_url)


def test_missing_store_read_only_and_create_false(postgres_url: str, record: MakeRecord) -> None:
    for flags in ({"readonly": True}, {"create": False}):
        with pytest.raises(StoreError, match="no handoff store in schema"):
            PostgresStore(postgres_url, **flags)
    with admin(postgres_url) as conn:  # refused before anything was created
        assert conn.execute("SELECT to_regnamespace(%s)", (schema_of(postgres_url),)).fetchone() \
            == (None,)
    PostgresStore(postgres_url).close()
    with PostgresStore(postgres_url, readonly=True) as store:
        assert store.query() == []
        with pytest.raises(StoreError, match="read-only"):
            store.add(record(1))


def test_put_many_rewrites_history_rows(postgres_url: str, record: MakeRecord) -> None:
    with PostgresStore(postgres_url) as store:
        manager = HandoffManager(store=store)
        rid = manager.create_handoff(
            HandoffRequest(from_agent="a", to_agent="b", task_description="t")
        ).record_id
        manager.accept(rid)
        restored = record(1)  # an import overwrites a record's whole history
        store.put_many([restored.model_copy(update={"record_id": rid}), record(2)])
        found = {r.record_id: r for r in store.query()}
    assert history_rows(postgres_url) == {rid: as_rows(found[rid]), "h-2": as_rows(found["h-2"])}


def test_statement_timeout_is_a_store_error(postgres_url: str, record: MakeRecord) -> None:
    with PostgresStore(postgres_url, statement_timeout_s=0.2) as store:
        store.add(record(1))
        with admin(postgres_url) as other, other.transaction():
            other.execute(f'SELECT 1 FROM "{schema_of(postgres_url)}".handoff_records FOR UPDATE')
            with pytest.raises(StoreError, match="statement_timeout_s"):
                store.replace(record(1, version=2), expected_version=1)
        store.replace(record(1, version=2), expected_version=1)  # the store is still usable
        assert store.get("h-1").version == 2


def test_unreachable_server_names_it_without_the_password() -> None:
    url = "postgresql://someone:hunter2@127.0.0.1:1/test?schema=nowhere"
    with pytest.raises(StoreError, match="cannot reach the database") as caught:
        PostgresStore(url, connect_timeout_s=1)
    assert caught.value.path == "postgresql://someone@127.0.0.1:1/test?schema=nowhere"
    assert "hunter2" not in str(caught.value)


def test_a_lost_connection_is_a_store_error_and_the_next_call_reconnects(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as store:
        store.add(record(1))
        assert terminate(postgres_url, store.origin, "pool") >= 1
        with pytest.raises(StoreError, match="lost the connection to the database") as caught:
            store.get("h-1")
        assert "the next call reconnects" in str(caught.value)
        assert store.get("h-1") == record(1)
        assert terminate(postgres_url, store.origin, "pool") >= 1
        with pytest.raises(StoreError, match="lost the connection to the database"):
            store.replace(record(1, version=2), expected_version=1)  # a group-committed write
        store.replace(record(1, version=2), expected_version=1)
        assert store.get("h-1").version == 2


def test_pool_size_caps_the_connections(postgres_url: str, record: MakeRecord) -> None:
    with PostgresStore(f"{postgres_url}&pool_size=2") as store:
        store.put_many(record(n) for n in range(20))
        peak = [0]

        def read() -> None:
            for _ in range(30):
                store.query(RecordQuery(limit=5))
                with admin(postgres_url) as conn:
                    found = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                        (f"handoff-engine pool {store.origin}",),
                    ).fetchone()
                peak[0] = max(peak[0], int(found[0]))

        threads = [threading.Thread(target=read) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert 1 <= peak[0] <= 2


def test_expire_due_skips_records_another_transaction_holds(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many(record(n) for n in range(3))
        t0 = record(0).created_at
        expire = lambda r: r.model_copy(update={"version": r.version + 1})  # noqa: E731
        with admin(postgres_url) as other, other.transaction():
            other.execute(f'SELECT 1 FROM "{schema_of(postgres_url)}".handoff_records'
                          " WHERE record_id = 'h-0' FOR UPDATE")
            # Returning while `other` still holds h-0 proves it was skipped: a claim that waited
            # for the lock would wait for `other`, which only lets go after this call.
            done = store.expire_due(created_before=t0.replace(year=2027), now=t0, expire=expire)
        assert [r.record_id for r in done] == ["h-1", "h-2"]
        assert store.get("h-0").version == 1


def test_notifications_carry_id_version_status_and_never_content(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as store, admin(postgres_url) as listener:
        listener.execute(f'LISTEN "handoff:{schema_of(postgres_url)}"')
        store.add(record(1, context={"secret": "4111-1111"}))
        (notify,) = listener.notifies(timeout=HANG_S, stop_after=1)
    payload = json.loads(notify.payload)
    assert payload == {"id": "h-1", "version": 1, "status": "pending", "origin": store.origin}


@pytest.mark.parametrize(
    "record_id", ["h-1", 'a "quoted"\\id', "two\nlines", "caf\u00e9-\U0001f4de"]
)
@pytest.mark.parametrize("status", ["pending", "in_progress", "failed"])
def test_a_notification_is_the_json_the_standard_encoder_writes(
    record: MakeRecord, record_id: str, status: str
) -> None:
    """Payloads are formatted directly; they stay byte for byte what `json.dumps` writes (the
    listeners of replicas on any engine version parse them), one line, ASCII only."""
    def no_connection() -> Any:
        raise AssertionError("formatting a payload never connects")

    notifier = Notifier(no_connection, channel="c", origin='o"1', location="here")
    moved = record(1, record_id=record_id, status=status, version=7)
    payload = notifier.payload(moved)
    assert payload == json.dumps(
        {"id": record_id, "version": 7, "status": status, "origin": 'o"1'}
    )
    assert payload.isascii() and "\n" not in payload


def test_the_feed_reports_other_replicas_and_rereads_after_a_reconnect(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as here, PostgresStore(postgres_url) as there:
        seen: list[RecordChange] = []
        resyncs = threading.Event()
        here.subscribe(seen.append, on_resync=resyncs.set)
        assert here.sees_every_writer
        resyncs.clear()
        there.add(record(1))
        _until(lambda: len(seen) == 1)
        assert seen == [RecordChange("h-1", 1, record(1).status, remote=True)]
        assert terminate(postgres_url, here.origin, "listener") == 1
        there.replace(record(1, version=2, status="accepted"), expected_version=1)
        assert resyncs.wait(10), "no re-read was asked for after the reconnect"
        assert here.get("h-1").version == 2  # what a subscriber does on resync
        there.replace(record(1, version=3, status="completed"), expected_version=2)
        _until(lambda: seen[-1].version == 3)
        assert here.sees_every_writer


def test_engine_stores_imports_first_without_a_cycle() -> None:
    import subprocess
    import sys

    code = "import engine.stores.postgres, engine.stores; print(engine.stores.PostgresStore)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "engine.stores.postgres.PostgresStore" in done.stdout


def _until(condition: Callable[[], bool], timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def queue_then_commit_together(
    group: Any, write: Callable[..., Any], jobs: list[tuple[str, HandoffRecord]]
) -> None:
    """Start one writer thread per job while every batch slot is busy, so they all queue up;
    then free a slot: the first queued writer commits them all in one batch."""
    with group._lock:
        group._leaders = group.in_flight
    threads = [threading.Thread(target=write, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    _until(lambda: len(group._queue) == len(jobs))
    group._hand_over()
    for thread in threads:
        thread.join()


def test_concurrent_writes_share_one_commit_and_a_conflict_fails_alone(
    postgres_url: str, record: MakeRecord, racing_writer: Callable[..., Any]
) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many(record(n) for n in range(4))
        group = store._group
        outcomes: dict[str, str] = {}
        write = racing_writer(store, outcomes)

        jobs = [("d", record(3, version=2)), ("a", record(0, version=2)),
                ("c", record(2, version=2)), ("c-again", record(2, version=2, status="rejected"))]
        queue_then_commit_together(group, write, jobs)
        assert (group.commits, group.writes) == (1, 4)
        assert (outcomes["a"], outcomes["d"]) == ("ok", "ok")
        assert sorted([outcomes["c"], outcomes["c-again"]]) == ["conflict", "ok"]  # one wins
        assert [r.version for r in store.query()] == [2, 1, 2, 2]
        winner = "pending" if outcomes["c"] == "ok" else "rejected"
        assert store.get("h-2").status.value == winner


def test_a_batch_of_moves_is_one_statement_and_a_conflict_fails_alone(
    postgres_url: str, record: MakeRecord, racing_writer: Callable[..., Any]
) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many(record(n) for n in range(3))
        moves = [record(n).history[0] for n in range(3)]
        group = store._group
        outcomes: dict[str, str] = {}
        write = racing_writer(store, outcomes)

        def accepted(n: int) -> HandoffRecord:
            step = {"from": "pending", "to": "accepted", "trigger": "accept",
                    "at": moves[n].at, "actor": "b"}
            return record(n, status="accepted", history=[moves[n], step], version=2)

        store.replace(accepted(1), expected_version=1)  # the racer for h-1 comes too late
        jobs = [("h-2", accepted(2)), ("h-0", accepted(0)), ("h-1", accepted(1))]
        queue_then_commit_together(group, write, jobs)
        assert (group.commits, group.writes) == (2, 4)  # the first write, then one batch
        assert outcomes == {"h-0": "ok", "h-1": "conflict", "h-2": "ok"}
        found = {r.record_id: r for r in store.query()}
        assert [found[f"h-{n}"] for n in range(3)] == [accepted(n) for n in range(3)]
    assert history_rows(postgres_url) == {rid: as_rows(r) for rid, r in found.items()}


def test_group_commit_under_load_never_reports_a_false_conflict(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many(record(n) for n in range(480))
        # retries=0: a false conflict would surface; the clock stands at the records' creation
        # (a move on a record past its pending timeout would expire it instead).
        created = record(0).created_at
        manager = HandoffManager(store=store, retries=0, clock=lambda: created)
        failures: list[BaseException] = []

        def session(ids: list[str]) -> None:
            try:
                for record_id in ids:
                    manager.accept(record_id)
                    manager.start(record_id)
                    manager.complete(record_id, {"ok": True})
            except BaseException as error:  # reported below, with the others
                failures.append(error)

        threads = [
            threading.Thread(target=session, args=([f"h-{n}" for n in range(k, 480, 16)],))
            for k in range(16)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert {r.version for r in store.query()} == {4}
        group = store._group
        assert group.writes == 1440 and group.commits < group.writes  # batches formed


@pytest.mark.parametrize("pool_size", [1, 4])  # one: the leader holds the only pooled one
def test_a_notification_lost_with_its_connection_is_sent_again(
    postgres_url: str, record: MakeRecord, pool_size: int
) -> None:
    with PostgresStore(postgres_url, pool_size=pool_size, connect_timeout_s=30) as writer, \
            PostgresStore(postgres_url) as reader:
        seen: list[RecordChange] = []
        reader.subscribe(seen.append)
        writer.add(record(1))
        _until(lambda: len(seen) == 1)
        announce = writer._group._announce
        assert announce is not None

        def cut_then_announce(conn: Any, notes: list[str], sent: bool) -> None:
            """The connection dies between the commit and its notification."""
            assert terminate(postgres_url, writer.origin, "pool") >= 1
            announce(conn, notes, sent)

        writer._group._announce = cut_then_announce
        writer.add(record(2))  # with one pooled connection, waiting for it would drop the note
        _until(lambda: len(seen) == 2)  # sent again on a new connection
        assert seen[-1] == RecordChange("h-2", 1, record(2).status, remote=True)
        assert (writer._notifier.sent, writer._notifier.dropped) == (2, 0)
        assert writer.get("h-2").version == 1  # the write was acknowledged and is durable


def test_a_batch_of_moves_sends_its_notifications_with_its_commit_or_else_after_it(
    postgres_url: str, record: MakeRecord
) -> None:
    with PostgresStore(postgres_url) as writer, PostgresStore(postgres_url) as reader:
        seen: list[RecordChange] = []
        reader.subscribe(seen.append)
        writer.put_many([record(1)])
        _until(lambda: len(seen) == 1)
        sent = writer._notifier.sent
        writer.replace(record(1, version=2, status="accepted"), expected_version=1)
        _until(lambda: len(seen) == 2)  # sent by the call that wrote the move
        assert seen[-1] == RecordChange("h-1", 2, seen[-1].status, remote=True)
        assert writer._notifier.sent == sent + 1
        moves = writer._group._many
        (statement, many), = moves.items()

        def unsendable(rows: list[Any], notes: list[str | None]) -> Any:
            """The procedure's notifications fail (a channel name PostgreSQL refuses)."""
            sql, params = many(rows, notes)
            return sql, [*params[:-2], "", params[-1]]

        moves[statement] = unsendable
        writer.replace(record(1, version=3, status="completed"), expected_version=2)
        _until(lambda: len(seen) == 3)  # the moves are durable; sent again from the client
        assert seen[-1] == RecordChange("h-1", 3, seen[-1].status, remote=True)
        assert (writer._notifier.sent, writer._notifier.dropped) == (sent + 2, 0)
        assert writer.get("h-1").version == 3


def test_a_value_over_a_database_limit_is_not_reported_as_unreachable() -> None:
    from engine.stores.postgres_schema import explain

    error = psycopg.errors.ProgramLimitExceeded("index row size 3000 exceeds btree maximum 2704")
    assert explain(error) == (
        "a value is over a limit of the database (index row size 3000 exceeds btree maximum 2704)")
