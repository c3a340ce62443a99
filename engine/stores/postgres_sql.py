"""The SQL a `PostgresStore` runs, written once per store, and the parameters of a record.

Every write is one statement: the record row and its new history rows (read from the stored
JSON by the server) travel together, so a move costs one round trip. No connection handling
here; notifications are sent apart from writes (see `engine.stores.postgres_notify`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.lifecycle.models import HandoffRecord
from engine.stores.base import RecordQuery, sql_filter
from engine.stores.postgres_schema import MOVES, RECORDS

_LIVE = "('pending', 'accepted', 'in_progress')"
_COLUMNS = "record_id, status, from_agent, to_agent, created_at, deadline, version, body"
_HISTORY = """history AS (
    INSERT INTO {m} (record_id, position, from_status, to_status, trigger, at, reason, actor)
    SELECT w.record_id, e.n - 1, e.m->>'from', e.m->>'to', e.m->>'trigger',
           (e.m->>'at')::timestamptz, e.m->>'reason', e.m->>'actor'
    FROM written w, json_array_elements(w.body::json->'history') WITH ORDINALITY AS e(m, n)
    WHERE e.n > %s
    ON CONFLICT DO NOTHING
)
SELECT count(*) FROM written"""


@dataclass(frozen=True, slots=True)
class Statements:
    """Statement texts for the store in one schema (a validated identifier)."""

    records: str
    insert: str
    upsert: str
    update: str
    clear_history: str
    get: str
    version: str
    due: str
    claim_due: str
    ids_with_prefix: str

    @classmethod
    def for_schema(cls, schema: str) -> Statements:
        r, m = f'"{schema}".{RECORDS}', f'"{schema}".{MOVES}'
        history = _HISTORY.format(m=m)
        values = f"INSERT INTO {r} ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
        returning = f"RETURNING record_id, body), {history}"
        excluded = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
        due = (
            f"SELECT body FROM {r} WHERE (status = 'pending' AND created_at < %s)"
            f" OR (status IN {_LIVE} AND deadline <= %s) ORDER BY created_at, seq LIMIT %s"
        )
        return cls(
            records=r,
            insert=f"WITH written AS ({values} ON CONFLICT (record_id) DO NOTHING {returning}",
            upsert=f"WITH written AS ({values} ON CONFLICT (record_id) DO UPDATE SET {excluded}"
            f" {returning}",
            update=f"WITH written AS (UPDATE {r} SET status = %s, version = %s, body = %s"
            f" WHERE record_id = %s AND version = %s {returning}",
            clear_history=f"DELETE FROM {m} WHERE record_id = ANY(%s)",
            get=f"SELECT body FROM {r} WHERE record_id = %s",
            version=f"SELECT version FROM {r} WHERE record_id = %s",
            due=due,
            claim_due=f"{due} FOR UPDATE SKIP LOCKED",
            # An operator's lookup (`handoff records show 3f2a`): a scan, in code point order.
            ids_with_prefix=f"SELECT record_id FROM {r} WHERE starts_with(record_id, %s)"
            ' ORDER BY record_id COLLATE "C" LIMIT %s',
        )

    def select(self, query: RecordQuery, *, what: str) -> tuple[str, list[Any]]:
        """`SELECT what` over the records matching `query` (ordered and paged for bodies)."""
        clauses, params = _where(query)
        sql = f"SELECT {what} FROM {self.records}{clauses}"
        if what == "body":
            sql += " ORDER BY created_at, seq LIMIT %s OFFSET %s"
            params += [query.limit, query.offset]
        return sql, params


def row(record: HandoffRecord, body: str) -> tuple[Any, ...]:
    """Parameters of `insert`/`upsert` (all history rows are new)."""
    request = record.request
    return (
        record.record_id, record.status.value, request.from_agent, request.to_agent,
        record.created_at, request.deadline, record.version, body, 0,
    )


def update(record: HandoffRecord, body: str, expected: int) -> tuple[Any, ...]:
    """Parameters of `update`: the history entries past those the expected version had are
    new (one per version the record moved on; a move appends one entry)."""
    new_entries = max(record.version - expected, 1)
    first_new = max(len(record.history) - new_entries, 0)
    return (record.status.value, record.version, body, record.record_id, expected, first_new)


def _where(query: RecordQuery) -> tuple[str, list[Any]]:
    return sql_filter(query, mark="%s", created="created_at", moment=lambda moment: moment)
