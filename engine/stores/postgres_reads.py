"""The reads of a `PostgresStore`: records by id, query and count (exact for agent names a
text column cannot tell apart), prefixes, due records, and the cache of parsed records.

A base class of the store; it never writes a record.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import datetime

import psycopg

from engine.errors import RecordNotFound, StoreError
from engine.records.models import HandoffRecord
from engine.records.store import ALL, RecordQuery
from engine.stores.postgres_sql import Statements, due_params, inexact

RECENT = 4096  # records kept parsed, with their stored JSON: `latest`, and reads skip parsing


class Reads:
    """Reads over `_connection()` with the store's statements `_sql`; parsed records are kept
    in `_recent` (record id -> (stored JSON, record)), guarded by `_cache_lock`."""

    _sql: Statements
    _recent: dict[str, tuple[str, HandoffRecord]]
    _cache_lock: threading.Lock

    @property
    def location(self) -> str:
        raise NotImplementedError

    def _connection(self) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def get(self, record_id: str) -> HandoffRecord:
        if "\x00" in record_id:  # no record id holds one
            raise RecordNotFound(record_id)
        with self._connection() as conn:
            found = conn.execute(self._sql.get, (record_id,), prepare=True).fetchone()
        if found is None:
            raise RecordNotFound(record_id)
        cached = self._recent.get(record_id)
        if cached is not None and cached[0] == found[0]:  # unchanged: the same object again
            return cached[1]
        record = self._load(found[0])
        self._remember([(record, found[0])])
        return record

    def latest(self, record_id: str) -> HandoffRecord:
        cached = self._recent.get(record_id)
        return self.get(record_id) if cached is None else cached[1]

    def query(self, query: RecordQuery = ALL) -> list[HandoffRecord]:
        if inexact(query):
            end = None if query.limit is None else query.offset + query.limit
            return self._exact(query)[query.offset : end]
        sql, params = self._sql.select(query, what="body")
        with self._connection() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [self._load(body) for (body,) in rows]

    def _exact(self, query: RecordQuery) -> list[HandoffRecord]:
        """Every record matching `query` (paging aside), checked on the records themselves."""
        sql, params = self._sql.select(replace(query, limit=None, offset=0), what="body")
        with self._connection() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [record for record in map(self._load, (body for (body,) in rows))
                if query.matches(record)]

    def count(self, query: RecordQuery = ALL) -> int:
        if inexact(query):
            return len(self._exact(query))
        sql, params = self._sql.select(query, what="count(*)")
        with self._connection() as conn:
            found = conn.execute(sql, params).fetchone()
        return 0 if found is None else int(found[0])

    def ids_with_prefix(self, prefix: str, *, limit: int) -> list[str]:
        if "\x00" in prefix:
            return []
        with self._connection() as conn:
            rows = conn.execute(self._sql.ids_with_prefix, (prefix, limit)).fetchall()
        return [record_id for (record_id,) in rows]

    def due(self, *, created_before: datetime, now: datetime) -> list[HandoffRecord]:
        with self._connection() as conn:
            params = due_params(created_before, now, None)
            rows = conn.execute(self._sql.due, params, prepare=False).fetchall()
        return [self._load(body) for (body,) in rows]

    def _remember(self, pairs: Iterable[tuple[HandoffRecord, str]]) -> None:
        with self._cache_lock:
            recent = self._recent
            for record, body in pairs:
                recent.pop(record.record_id, None)
                recent[record.record_id] = (body, record)
            while len(recent) > RECENT:
                del recent[next(iter(recent))]

    def _load(self, body: str) -> HandoffRecord:
        try:
            return HandoffRecord.model_validate_json(body)
        except ValueError as error:
            raise StoreError(self.location, f"a stored record is unreadable: {error}") from error
