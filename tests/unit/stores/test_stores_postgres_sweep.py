"""PostgresStore schema version 6: every write keeps the sweeper's columns (`pending_since`,
`live_deadline`) in step with the status, the due query reads them through their partial
indexes, which moves stay HOT updates, and a version 5 store migrates and sweeps right."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord
from engine.records.models import LIVE_STATES, HandoffStatus
from tests.extras import need

need("psycopg", extra="postgres", group="postgres")

from engine.stores import PostgresStore  # noqa: E402 (imports psycopg)
from engine.stores.postgres_sql import Statements, due_params  # noqa: E402
from tests.unit.stores.conftest import T0, make_record  # noqa: E402
from tests.unit.stores.test_stores_postgres import admin, schema_of  # noqa: E402
from tests.unit.stores.test_stores_postgres_hot import (  # noqa: E402
    insert_as_before,
    moved,
    old_store,
)

_DEADLINE = T0 + timedelta(minutes=30)


def _columns(url: str) -> dict[str, tuple[Any, Any]]:
    """(pending_since, live_deadline) of every stored record, by id."""
    with admin(url) as conn:
        rows = conn.execute(
            f'SELECT record_id, pending_since, live_deadline FROM "{schema_of(url)}"'
            ".handoff_records"
        ).fetchall()
    return {record_id: (pending, live) for record_id, pending, live in rows}


def _expected(record: HandoffRecord) -> tuple[datetime | None, datetime | None]:
    live = record.status in LIVE_STATES
    return (
        record.created_at if record.status is HandoffStatus.pending else None,
        record.request.deadline if live else None,
    )


def _check(url: str, store: PostgresStore) -> dict[str, tuple[Any, Any]]:
    """Assert each stored record's columns match its status; return them."""
    found = _columns(url)
    assert found == {rid: _expected(store.get(rid)) for rid in found}
    return found


def test_every_write_sets_the_sweeper_columns_from_the_new_status(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        store.add(make_record(1, deadline=_DEADLINE))  # insert_one
        store.add(moved(2, ("pending", "accepted"), deadline=_DEADLINE))  # insert (2 entries)
        store.put_many([make_record(3), moved(4, ("pending", "accepted"))])  # import: upsert
        assert _check(postgres_url, store)["h-1"] == (T0 + timedelta(minutes=1), _DEADLINE)
        store.put_many([moved(3, ("pending", "rejected")),  # import over existing records
                        moved(4, ("pending", "accepted"), deadline=_DEADLINE)])
        assert _check(postgres_url, store)["h-4"] == (None, _DEADLINE)
        accepted = moved(1, ("pending", "accepted"), deadline=_DEADLINE)
        store.replace(accepted, expected_version=1)  # one move: the move procedure
        assert _check(postgres_url, store)["h-1"] == (None, _DEADLINE)
        jumped = moved(1, ("pending", "accepted"), ("accepted", "in_progress"),
                        ("in_progress", "completed"), deadline=_DEADLINE)
        store.replace(jumped, expected_version=2)  # several versions: entries from the JSON
        started = moved(2, ("pending", "accepted"), ("accepted", "in_progress"),
                         deadline=_DEADLINE)
        store.replace_many([(started, 2), (moved(4, ("pending", "accepted"),
                                                  ("accepted", "failed")), 2)])
        assert _check(postgres_url, store) == {
            "h-1": (None, None), "h-2": (None, _DEADLINE), "h-3": (None, None),
            "h-4": (None, None),
        }
        manager = HandoffManager(store=store, pending_timeout_s=60, deadlines="expire")
        assert [r.record_id for r in manager.expire_overdue(now=_DEADLINE)] == ["h-2"]
        assert _check(postgres_url, store) == {rid: (None, None) for rid in _columns(postgres_url)}


def test_a_version_5_store_migrates_and_sweeps_exactly_the_due_records(
    postgres_url: str,
) -> None:
    records = [
        make_record(1),  # pending: due once the pending timeout has passed
        moved(2, ("pending", "accepted"), deadline=_DEADLINE),  # live, deadline passed
        moved(3, ("pending", "accepted"), ("accepted", "completed"), deadline=_DEADLINE),
        moved(4, ("pending", "accepted"), ("accepted", "in_progress")),  # live, no deadline
        moved(5, ("pending", "accepted"), deadline=_DEADLINE + timedelta(days=2)),
    ]
    old_store(postgres_url, records, version=5)
    with PostgresStore(postgres_url) as store:
        assert _columns(postgres_url) == {r.record_id: _expected(r) for r in records}
        manager = HandoffManager(store=store, pending_timeout_s=60, deadlines="expire")
        expired = manager.expire_overdue(now=T0 + timedelta(days=1))
        assert sorted(r.record_id for r in expired) == ["h-1", "h-2"]
        assert manager.expire_overdue(now=T0 + timedelta(days=1)) == []
        assert store.get("h-3") == records[2]
        _check(postgres_url, store)


def test_a_column_left_stale_by_an_older_engine_never_expires_a_record(
    postgres_url: str,
) -> None:
    with PostgresStore(postgres_url) as store:
        store.put_many([make_record(1, deadline=_DEADLINE)])
        done = moved(1, ("pending", "rejected"), deadline=_DEADLINE)
        with admin(postgres_url) as conn:  # an engine of version 5 writes the move
            conn.execute(
                f'UPDATE "{schema_of(postgres_url)}".handoff_records SET status = %s,'
                " version = 2, body = %s WHERE record_id = 'h-1'",
                ("rejected", done.model_dump_json()),
            )
        assert _columns(postgres_url)["h-1"] == (T0 + timedelta(minutes=1), _DEADLINE)
        manager = HandoffManager(store=store, pending_timeout_s=60, deadlines="expire")
        assert manager.expire_overdue(now=T0 + timedelta(days=1)) == []
        assert store.get("h-1") == done


def test_a_live_record_an_older_engine_inserts_is_still_swept(postgres_url: str) -> None:
    with PostgresStore(postgres_url) as store:
        old = make_record(1, deadline=_DEADLINE)
        done = moved(2, ("pending", "completed"), deadline=_DEADLINE)
        with admin(postgres_url) as conn:  # an engine of version 5 inserts them, columns unset
            for record in (old, done):
                insert_as_before(conn, schema_of(postgres_url), record)
        columns = _columns(postgres_url)
        assert columns["h-1"] == (old.created_at, _DEADLINE)  # filled by the insert trigger
        assert columns["h-2"] == (None, None)  # a finished record is no sweep's business
        manager = HandoffManager(store=store, pending_timeout_s=60, deadlines="expire")
        expired = manager.expire_overdue(now=T0 + timedelta(days=1))
        assert [record.record_id for record in expired] == ["h-1"]


def _fill(url: str, terminal: int, live: int) -> None:
    """`terminal` old finished records and `live` recent ones (a third pending), analyzed."""
    with PostgresStore(url) as store:
        store.put_many(
            moved(n, ("pending", "completed")) if n < terminal
            else make_record(n, deadline=_DEADLINE) if n % 3 == 0
            else moved(n, ("pending", "accepted"), deadline=_DEADLINE)
            for n in range(terminal + live)
        )
    with admin(url) as conn:
        conn.execute(f'ANALYZE "{schema_of(url)}".handoff_records')


@pytest.mark.parametrize("claim", [False, True], ids=["due", "claim_due"])
def test_the_due_query_reads_the_partial_indexes(postgres_url: str, claim: bool) -> None:
    _fill(postgres_url, terminal=3000, live=30)
    sql = Statements.for_schema(schema_of(postgres_url))
    with admin(postgres_url) as conn:
        plan = "\n".join(line for (line,) in conn.execute(
            "EXPLAIN " + (sql.claim_due if claim else sql.due),
            due_params(T0, T0, 500),
        ))
    assert "handoff_records_pending_since" in plan
    assert "handoff_records_live_deadline" in plan
    assert "BitmapOr" in plan


_ACCEPT = ("pending", "accepted")
_START = ("accepted", "in_progress")


@pytest.mark.parametrize(("deadline", "steps", "hot"), [
    (None, [_ACCEPT], False),  # pending_since leaves its index
    (None, [_ACCEPT, _START], True),
    (None, [_ACCEPT, _START, ("in_progress", "completed")], True),
    (None, [_ACCEPT, ("accepted", "failed")], True),
    (_DEADLINE, [_ACCEPT, _START], True),
    (_DEADLINE, [_ACCEPT, _START, ("in_progress", "completed")], False),  # live_deadline leaves
], ids=["accept", "start", "complete", "fail", "start-deadline", "complete-deadline"])
def test_which_moves_are_hot_updates(
    postgres_url: str, deadline: datetime | None, steps: list[tuple[str, str]], hot: bool
) -> None:
    before = moved(1, *steps[:-1], deadline=deadline) if steps[:-1] else make_record(
        1, deadline=deadline)
    after = moved(1, *steps, deadline=deadline)
    with PostgresStore(postgres_url) as store:
        store.put_many([before])
    sql, params = Statements.for_schema(schema_of(postgres_url)).update_of(
        after, after.model_dump_json(), before.version)
    table = f'"{schema_of(postgres_url)}".handoff_records'
    with admin(postgres_url) as conn, conn.transaction():  # the UPDATE of the move, counted
        conn.execute(sql, params)
        counted = conn.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables"
                               " WHERE relid = %s::regclass", (table,)).fetchone()
    assert counted == (1, 1 if hot else 0)


def test_sweeps_are_never_prepared(postgres_url: str) -> None:
    """A prepared due query would switch to a generic plan, which reads every record."""
    with PostgresStore(postgres_url, pool_size=1) as store:
        store.put_many([make_record(1)])
        for _ in range(8):  # past psycopg's prepare threshold (5)
            store.due(created_before=T0, now=T0)
            store.expire_due(created_before=T0, now=T0, expire=lambda record: None)
        with store._connection() as conn:
            prepared = conn.execute("SELECT statement FROM pg_prepared_statements").fetchall()
    assert prepared != [] and [s for (s,) in prepared if "pending_since <" in s] == []
