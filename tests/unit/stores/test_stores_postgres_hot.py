"""PostgresStore schema version 5: no index names `status`, so a move can be a HOT update; the
sweeper still expires only live records, and a version 4 store migrates to it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.records.models import HandoffStatus
from engine.stores import RecordQuery
from tests.extras import need

need("psycopg", extra="postgres", group="postgres")

from engine.stores import PostgresStore  # noqa: E402 (imports psycopg)
from tests.unit.stores.conftest import T0, make_record  # noqa: E402
from tests.unit.stores.test_stores_postgres import (  # noqa: E402
    admin,
    schema_of,
    store_at_version,
)

_INSERT = (
    'INSERT INTO "{s}".handoff_records (record_id, status, from_agent, to_agent, created_at,'
    " deadline, version, body) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)


def moved(n: int, *steps: tuple[str, str], **fields: Any) -> HandoffRecord:
    """Record `n` after `steps` (from, to), each a minute after the one before."""
    first = make_record(n, **fields)
    history = [*first.history]
    for k, (source, target) in enumerate(steps, start=1):
        history.append({"from": source, "to": target, "trigger": target,
                        "at": first.created_at + timedelta(minutes=k), "actor": "b"})
    return make_record(n, status=steps[-1][1], version=len(history), history=history, **fields)


def old_store(url: str, records: list[HandoffRecord], *, version: int) -> None:
    """What an engine with migrations 1 to `version` left behind, holding `records`."""
    with admin(url) as conn:
        schema = store_at_version(conn, url, version)
        for record in records:
            insert_as_before(conn, schema, record)


def insert_as_before(conn: Any, schema: str, r: HandoffRecord) -> None:
    """Insert `r` as an engine before schema version 6 did (the columns it knew of)."""
    conn.execute(_INSERT.replace("{s}", schema), (
        r.record_id, r.status.value, r.request.from_agent, r.request.to_agent,
        r.created_at, r.request.deadline, r.version, r.model_dump_json(),
    ))


def test_a_version_4_store_migrates_and_sweeps_only_live_records(postgres_url: str) -> None:
    deadline = T0 + timedelta(minutes=30)
    pending = make_record(1)
    overdue = moved(2, ("pending", "accepted"), deadline=deadline)
    done = moved(3, ("pending", "accepted"), ("accepted", "completed"), deadline=deadline)
    old_store(postgres_url, [pending, overdue, done], version=4)
    with PostgresStore(postgres_url) as store:
        manager = HandoffManager(store=store, pending_timeout_s=60, deadlines="expire")
        expired = manager.expire_overdue(now=T0 + timedelta(days=1))
        assert sorted(r.record_id for r in expired) == ["h-1", "h-2"]
        assert store.get("h-3") == done
        request = HandoffRequest(from_agent="a", to_agent="b", task_description="t")
        fresh = manager.create_handoff(request).record_id
        manager.accept(fresh)
        assert [r.record_id for r in store.query(RecordQuery(status=HandoffStatus.accepted))] == [
            fresh
        ]
        manager.start(fresh)
        manager.complete(fresh, {"ok": True})
        assert store.count(RecordQuery(status=HandoffStatus.in_progress)) == 0
        assert store.count(RecordQuery(status=HandoffStatus.completed)) == 2


def test_a_move_is_a_hot_update(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many([make_record(1)])
    table = f'"{schema_of(postgres_url)}".handoff_records'
    with admin(postgres_url) as conn, conn.transaction():  # the UPDATE of a move, counted
        conn.execute(f"UPDATE {table} SET status = 'accepted', version = 2, body = body"
                     " WHERE record_id = 'h-1' AND version = 1")
        counted = conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables"
                               " WHERE relid = %s::regclass", (table,)).fetchone()
    assert counted == (1, 1)


def test_no_index_names_status_and_pages_keep_room(postgres_url: str) -> None:
    PostgresStore(postgres_url).close()
    with admin(postgres_url) as conn:
        found = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %s"
            " AND tablename = 'handoff_records' ORDER BY indexname", (schema_of(postgres_url),),
        ).fetchall()
        options = conn.execute(
            "SELECT reloptions FROM pg_class WHERE oid = %s::regclass",
            (f'"{schema_of(postgres_url)}".handoff_records',),
        ).fetchone()
    names = [name for name, _ in found]
    assert names == ["handoff_records_created", "handoff_records_from",
                     "handoff_records_live_deadline", "handoff_records_pending_since",
                     "handoff_records_pkey", "handoff_records_to"]
    assert [name for name, definition in found if "status" in definition] == []
    assert options == (["fillfactor=80"],)
