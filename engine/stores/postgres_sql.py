"""The SQL a `PostgresStore` runs, written once per store, and the parameters of a record.

Every write is one statement: the record row and its new history rows travel together, so a
move costs one round trip. A write that adds one history entry (a move, a new record) passes
that entry as parameters; any other (an import, a jump of several versions) lets the server
read the new entries from the stored JSON, which costs it a parse of the whole record. A batch
of moves of distinct records (even a batch of one) is one call of the schema's
`handoff_move_notify`, which also sends the moves' notifications once they are durable; other
writes' notifications are sent apart (see `engine.stores.postgres_notify`). Every write sets
the sweeper's columns (`pending_since`, `live_deadline`) from the record's new status.
PostgreSQL text holds no NUL character: text columns keep each as U+FFFD (`column_text`), the
record's JSON keeps it exactly. No connection handling here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any

from engine.records.models import LIVE_STATES, HandoffRecord, HandoffStatus, as_utc
from engine.records.store import RecordQuery, sql_filter
from engine.stores.postgres_schema import MOVES, RECORDS

_LIVE = "('pending', 'accepted', 'in_progress')"
_COLUMNS = (
    "record_id, status, from_agent, to_agent, created_at, deadline, version, body,"
    " pending_since, live_deadline"
)
_SWEPT = (  # an UPDATE's sweeper columns, from the new status (as in migration 6)
    "pending_since = CASE WHEN new_status = 'pending' THEN created_at END,"
    f" live_deadline = CASE WHEN new_status IN {_LIVE} THEN deadline END"
)
# Due: pending past the timeout, or live past its deadline. The indexed columns find the
# candidates; the status and times in the row decide (a column an older engine's write left
# stale costs a row read, never a wrong expiry). Never run it prepared: a generic plan knows
# neither the times nor the limit and reads every record in creation order instead.
_DUE = (
    "WHERE (pending_since < %(created_before)s AND status = 'pending'"
    " AND created_at < %(created_before)s)"
    f" OR (live_deadline <= %(now)s AND status IN {_LIVE} AND deadline <= %(now)s)"
    " ORDER BY created_at, seq LIMIT %(limit)s"
)
_HISTORY = """history AS (
    INSERT INTO {m} (record_id, position, from_status, to_status, trigger, at, reason, actor)
    SELECT w.record_id, e.n - 1, e.m->>'from', e.m->>'to', e.m->>'trigger',
           (e.m->>'at')::timestamptz, e.m->>'reason', e.m->>'actor'
    FROM written w,
         json_array_elements(coalesce(%s::json, w.body::json->'history')) WITH ORDINALITY AS e(m, n)
    WHERE e.n > %s
    ON CONFLICT DO NOTHING
)
SELECT count(*) FROM written"""
_ENTRY = """history AS (
    INSERT INTO {m} (record_id, position, from_status, to_status, trigger, at, reason, actor)
    SELECT record_id, %s::integer, %s::text, %s::text, %s::text, %s::timestamptz, %s::text,
           %s::text
    FROM written
    ON CONFLICT DO NOTHING
)
SELECT count(*) FROM written"""
_MOVE_TYPES = (  # `update_one`'s parameters; see migration 4 in postgres_migrations
    "text", "integer", "text", "text", "integer", "integer", "text", "text", "text",
    "timestamptz", "text", "text",
)
_PENDING = HandoffStatus.pending


@dataclass(frozen=True, slots=True)
class Statements:
    """Statement texts for the store in one schema (a validated identifier)."""

    records: str
    insert: str
    insert_one: str
    upsert: str
    update: str
    update_one: str
    move_notify: str
    """The schema's procedure writing `update_one`'s rows and sending their notifications."""
    clear_history: str
    held: str
    """The ids of a list (`= ANY`) that the store holds, locked for this transaction."""
    get: str
    version: str
    due: str
    claim_due: str
    ids_with_prefix: str

    @classmethod
    def for_schema(cls, schema: str) -> Statements:
        r, m = f'"{schema}".{RECORDS}', f'"{schema}".{MOVES}'
        values = f"INSERT INTO {r} ({_COLUMNS}) VALUES ({', '.join(['%s'] * 10)})"
        returning = f"RETURNING record_id, body), {_HISTORY.format(m=m)}"
        returning_one = f"RETURNING record_id), {_ENTRY.format(m=m)}"
        change = (
            f"UPDATE {r} SET status = new_status, version = new_version, body = new_body,"
            f" {_SWEPT} FROM (VALUES (%s::text, %s::integer, %s::text))"
            " AS n(new_status, new_version, new_body) WHERE record_id = %s AND version = %s"
        )
        excluded = ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS.split(", ")[1:])
        due = f"SELECT body FROM {r} {_DUE}"
        return cls(
            records=r,
            insert=f"WITH written AS ({values} ON CONFLICT (record_id) DO NOTHING {returning}",
            insert_one=f"WITH written AS ({values} ON CONFLICT (record_id) DO NOTHING"
            f" {returning_one}",
            upsert=f"WITH written AS ({values} ON CONFLICT (record_id) DO UPDATE SET {excluded}"
            f" {returning}",
            update=f"WITH written AS ({change} {returning}",
            update_one=f"WITH written AS ({change} {returning_one}",
            move_notify=f'"{schema}".handoff_move_notify',
            clear_history=f"DELETE FROM {m} WHERE record_id = ANY(%s)",
            held=f"SELECT record_id FROM {r} WHERE record_id = ANY(%s) FOR UPDATE",
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

    def moves(
        self, rows: list[tuple[Any, ...]], *, channel: str, notes: list[str | None]
    ) -> tuple[str, list[Any]]:
        """`update_one` for several records at once (each at most once, in the order given) and
        their notifications (`None`: none), as one call; it selects the (1-based) positions of
        the rows written and whether their notifications went out. Each value is a parameter
        of its own (an array parameter costs the client far more to encode); the statement has
        `$n` placeholders (for a `psycopg.RawCursor`)."""
        values = [value for column in zip(*rows, strict=True) for value in column]
        values += [channel, "\n".join(note or "" for note in notes)]
        return _call(self.move_notify, len(rows)), values

    def insert_of(self, record: HandoffRecord, body: str) -> tuple[str, tuple[Any, ...]]:
        """The statement adding `record` (none if its id exists) and its parameters."""
        if len(record.history) == 1:
            return self.insert_one, (*_row(record, body), *_entry(record, 0))
        return self.insert, row(record, body)

    def update_of(
        self, record: HandoffRecord, body: str, expected: int
    ) -> tuple[str, tuple[Any, ...]]:
        """The statement writing `record` over the stored version `expected` and its
        parameters. The history entries past those the expected version had are new: one per
        version the record moved on (a move appends one entry)."""
        new_entries = max(record.version - expected, 1)
        first_new = max(len(record.history) - new_entries, 0)
        change = (record.status.value, record.version, body, record.record_id, expected)
        if new_entries == 1 and record.history:
            return self.update_one, (*change, *_entry(record, first_new))
        return self.update, (*change, history_text(record, body), first_new)


def due_params(created_before: datetime, now: datetime, limit: int | None) -> dict[str, Any]:
    """Parameters of `due` and `claim_due` (`limit` None: every due record)."""
    return {"created_before": created_before, "now": now, "limit": limit}


def row(record: HandoffRecord, body: str) -> tuple[Any, ...]:
    """Parameters of `upsert` (all history rows are new, read from the JSON)."""
    return (*_row(record, body), history_text(record, body), 0)


def column_text(value: str) -> str:
    """`value` as a text column keeps it: PostgreSQL text has no NUL character, so each NUL is
    kept as U+FFFD there. The record's JSON (what every read returns) keeps it exactly."""
    return value.replace("\x00", "\ufffd")


def inexact(query: RecordQuery) -> bool:
    """True if `query` names an agent whose column value other names share (a NUL or U+FFFD
    in it): only the records themselves tell which match."""
    agent = query.agent
    return agent is not None and ("\x00" in agent or "\ufffd" in agent)


def history_text(record: HandoffRecord, body: str) -> str | None:
    """The history entries as JSON for a write that reads them from JSON, when the server cannot
    read them from `body`, or None. PostgreSQL refuses JSON with an escaped NUL anywhere in it,
    so then the entries come apart, each NUL as a column keeps it."""
    if "\\u0000" not in body:
        return None
    return json.dumps([
        {"from": None if move.from_ is None else move.from_.value, "to": move.to.value,
         "trigger": column_text(move.trigger), "at": as_utc(move.at).isoformat(),
         "reason": column_text(move.reason), "actor": column_text(move.actor)}
        for move in record.history
    ])


def _row(record: HandoffRecord, body: str) -> tuple[Any, ...]:
    request, status = record.request, record.status
    return (
        record.record_id, status.value, column_text(request.from_agent),
        column_text(request.to_agent),
        record.created_at, request.deadline, record.version, body,
        record.created_at if status is _PENDING else None,
        request.deadline if status in LIVE_STATES else None,
    )


def _entry(record: HandoffRecord, position: int) -> tuple[Any, ...]:
    """Parameters of the history row at `position`, as the JSON path would read them."""
    move = record.history[position]
    source = move.from_
    return (
        position, None if source is None else source.value, move.to.value,
        column_text(move.trigger), as_utc(move.at), column_text(move.reason),
        column_text(move.actor),
    )


@lru_cache(maxsize=128)
def _call(procedure: str, rows: int) -> str:
    """`CALL procedure(...)` with one array of `rows` single-value parameters per column, in
    PostgreSQL's own `$n` placeholders (psycopg parses no statement of more than 50 once)."""
    arrays = ", ".join(
        "ARRAY[" + ", ".join(f"${column * rows + n}::{kind}" for n in range(1, rows + 1)) + "]"
        for column, kind in enumerate(_MOVE_TYPES)
    )
    last = len(_MOVE_TYPES) * rows
    return f"CALL {procedure}({arrays}, ${last + 1}, ${last + 2})"


def _where(query: RecordQuery) -> tuple[str, list[Any]]:
    if query.agent is not None:
        query = replace(query, agent=column_text(query.agent))
    return sql_filter(query, mark="%s", created="created_at", moment=lambda moment: moment)
