"""A record as a row of a SQLite store's table, the statements that write rows, and an import
of many records in one transaction (`restore`).

Rows only: transactions, locks and caches belong to `engine.stores.sqlite`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from engine.records.limits import check_storable
from engine.records.models import LIVE_STATES, HandoffRecord, HandoffStatus
from engine.records.store import RecordQuery, RestoreCounts, sql_filter
from engine.stores.changes import RecordChange
from engine.stores.sqlite_schema import TABLE

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
LIVE = tuple(status.value for status in HandoffStatus if status in LIVE_STATES)
PROBE = f"SELECT version, length(body) FROM {TABLE} WHERE record_id = ?"
FETCH = f"SELECT body FROM {TABLE} WHERE record_id = ?"
INSERT = (
    f"INSERT INTO {TABLE} (record_id, status, from_agent, to_agent, created_us, deadline_us,"
    " version, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_ADD = INSERT + " ON CONFLICT (record_id) DO NOTHING"
_OVERWRITE = (
    f"UPDATE {TABLE} SET status = ?, from_agent = ?, to_agent = ?, created_us = ?,"
    " deadline_us = ?, version = ?, body = ? WHERE record_id = ?"
)
UPDATE = (
    f"UPDATE {TABLE} SET status = ?, version = ?, body = ?"
    " WHERE record_id = ? AND version = ?"
)


def micros(moment: datetime) -> int:
    """A UTC time as microseconds since 1970 (the table's time columns)."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def row(record: HandoffRecord) -> tuple[Any, ...]:
    """The values of `INSERT`, in order; the record's JSON last."""
    deadline = record.request.deadline
    return (
        record.record_id,
        record.status.value,
        record.request.from_agent,
        record.request.to_agent,
        micros(record.created_at),
        None if deadline is None else micros(deadline),
        record.version,
        record.model_dump_json(),
    )


def where(query: RecordQuery) -> tuple[str, list[Any]]:
    return sql_filter(query, mark="?", created="created_us", moment=micros)


def restore(
    conn: sqlite3.Connection, records: Iterable[HandoffRecord], *, replace: bool,
    changes: list[RecordChange] | None,
) -> RestoreCounts:
    """Write `records` in the open transaction on `conn` (see `Store.restore`), reading them as
    it goes; what it wrote goes to `changes` unless that is None."""
    added = replaced = skipped = 0
    for record in records:
        check_storable(record)
        values = row(record)
        if conn.execute(_ADD, values).rowcount == 1:
            added += 1
        elif replace:
            conn.execute(_OVERWRITE, (*values[1:], values[0]))
            replaced += 1
        else:
            skipped += 1
            continue
        if changes is not None:
            changes.append(RecordChange(record.record_id, record.version, record.status))
    return RestoreCounts(added=added, replaced=replaced, skipped=skipped)
