"""An import into a PostgreSQL store: records read as they come and written in chunks of one
transaction, added, replaced or skipped by id (see `Store.restore`).

Statements come from `postgres_sql`; the connection, notifications and caches belong to the
store (`engine.stores.postgres`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import psycopg

from engine.records.limits import check_storable
from engine.records.models import HandoffRecord
from engine.records.store import RestoreCounts
from engine.stores.postgres_sql import Statements, row

_CHUNK = 500  # records per round of statements


def restore(
    conn: psycopg.Connection, sql: Statements, records: Iterable[HandoffRecord], *,
    replace: bool, written: Callable[[HandoffRecord], None],
) -> RestoreCounts:
    """Write `records` in one transaction on `conn`; `written` sees each record written."""
    counts = [0, 0, 0]  # added, replaced, skipped
    with conn.transaction():
        for chunk in _chunks(records):
            _write(conn, sql, chunk, replace, counts, written)
    return RestoreCounts(*counts)


def _chunks(records: Iterable[HandoffRecord]) -> Iterable[list[tuple[HandoffRecord, str]]]:
    """Checked records with their JSON, by chunk, each id once (the last), in id order (row
    locks taken in one order)."""
    source = iter(records)
    while batch := list(itertools.islice(source, _CHUNK)):
        last: dict[str, HandoffRecord] = {}
        for record in batch:
            check_storable(record)
            last[record.record_id] = record
        yield [(last[key], last[key].model_dump_json()) for key in sorted(last)]


def _write(
    conn: psycopg.Connection, sql: Statements, chunk: list[tuple[HandoffRecord, str]],
    replace: bool, counts: list[int], written: Callable[[HandoffRecord], None],
) -> None:
    ids = [record.record_id for record, _ in chunk]
    held = {found for (found,) in conn.execute(sql.held, (ids,)).fetchall()}
    new = [pair for pair in chunk if pair[0].record_id not in held]
    old = [pair for pair in chunk if pair[0].record_id in held]
    for pair, count in zip(new, _each(conn, sql.insert, new), strict=True):
        if count:
            counts[0] += 1
            written(pair[0])
        else:  # another writer added the id meanwhile: it is held now
            old.append(pair)
    if not replace:
        counts[2] += len(old)
        return
    if old:
        conn.execute(sql.clear_history, ([record.record_id for record, _ in old],))
        _each(conn, sql.upsert, old)
    counts[1] += len(old)
    for record, _ in old:
        written(record)


def _each(conn: psycopg.Connection, statement: str, pairs: list[tuple[HandoffRecord, str]]
          ) -> list[int]:
    """Run `statement` (which selects one count) once per record; the counts."""
    if not pairs:
        return []
    counts: list[Any] = []
    with conn.cursor() as cursor:
        cursor.executemany(statement, [row(*pair) for pair in pairs], returning=True)
        while True:
            found = cursor.fetchone()
            counts.append(0 if found is None else int(found[0]))
            if not cursor.nextset():
                return counts
