"""`SQLiteStore`: records in one SQLite file (WAL), durable once a write call returns.

A write returns only after the commit holding it (concurrent writes share one commit). Writers
never overwrite each other: an UPDATE applies only at the expected record version.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from engine.errors import RecordNotFound, StoreError, VersionConflict
from engine.lifecycle.models import LIVE_STATES, HandoffRecord, HandoffStatus
from engine.stores.base import ALL, RecordQuery, prefix_upper_bound
from engine.stores.sqlite_commit import GroupCommit
from engine.stores.sqlite_schema import TABLE, Synchronous, boundary, connect, explain

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_LIVE = tuple(status.value for status in HandoffStatus if status in LIVE_STATES)
_RECENT = 4096  # records kept parsed; a hit still checks the version in the file
_PROBE = f"SELECT version, length(body) FROM {TABLE} WHERE record_id = ?"
_FETCH = f"SELECT body FROM {TABLE} WHERE record_id = ?"
_INSERT = (
    f"INSERT INTO {TABLE} (record_id, status, from_agent, to_agent, created_us, deadline_us,"
    " version, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_UPSERT = _INSERT + (
    " ON CONFLICT (record_id) DO UPDATE SET status = excluded.status,"
    " from_agent = excluded.from_agent, to_agent = excluded.to_agent,"
    " created_us = excluded.created_us, deadline_us = excluded.deadline_us,"
    " version = excluded.version, body = excluded.body"
)
_UPDATE = (
    f"UPDATE {TABLE} SET status = ?, version = ?, body = ?"
    " WHERE record_id = ? AND version = ?"
)


def _micros(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _row(record: HandoffRecord) -> tuple[Any, ...]:
    deadline = record.request.deadline
    return (
        record.record_id,
        record.status.value,
        record.request.from_agent,
        record.request.to_agent,
        _micros(record.created_at),
        None if deadline is None else _micros(deadline),
        record.version,
        record.model_dump_json(),
    )


class SQLiteStore:
    """The durable `Store`: one SQLite file in WAL mode, shared safely by several processes.

    Writes from concurrent threads are group-committed: one transaction and one fsync for all
    that are waiting, each acknowledged only once that commit returned.

    `synchronous="FULL"` (default) fsyncs every commit, so an acknowledged move survives power
    loss; `"NORMAL"` survives a crash of the process but not of the machine. `readonly=True`
    opens an existing store for reading only; `create=False` refuses to create a new file.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        readonly: bool = False,
        synchronous: Synchronous = "FULL",
        timeout_s: float = 10.0,
    ) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()  # the writer connection
        self._read_lock = threading.Lock()  # the reader: reads never wait for a commit's fsync
        self._cache_lock = threading.Lock()
        self._recent: dict[str, tuple[tuple[int, int], HandoffRecord]] = {}
        open_ = functools.partial(
            connect, self.path, readonly=readonly, synchronous=synchronous, timeout_s=timeout_s
        )
        self._conn: sqlite3.Connection | None = open_(create=create)
        try:
            self._reader: sqlite3.Connection | None = open_(create=False)
        except BaseException:
            self._conn.close()
            raise
        self._group = GroupCommit(
            self._lock,
            self._connection,
            translate=lambda error: StoreError(self.path, explain(self.path, error)),
            after_commit=self._committed,
        )

    @property
    def location(self) -> str:
        return str(self.path)

    @contextmanager
    def _use(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The reader, or with `write` the writer wrapped in one transaction, under its lock."""
        if not write:
            with self._read_lock, boundary(self.path):
                if self._reader is None:
                    raise StoreError(self.path, "the store is closed")
                yield self._reader
            return
        with self._lock, boundary(self.path):
            conn = self._connection()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def add(self, record: HandoffRecord) -> None:
        row = _row(record)

        def insert(conn: sqlite3.Connection) -> list[tuple[HandoffRecord, str]]:
            try:
                conn.execute(_INSERT, row)
            except sqlite3.IntegrityError:
                actual = self._version(conn, record.record_id)
                raise VersionConflict(record.record_id, 0, actual) from None
            return [(record, row[7])]

        self._group.run(insert)

    def get(self, record_id: str) -> HandoffRecord:
        cached = self._recent.get(record_id)
        with self._read_lock:  # no context-manager helper here: this is every move's read
            reader = self._reader
            if reader is None:
                raise StoreError(self.path, "the store is closed")
            try:
                if cached is not None:  # same version and size as in the file: skip the parse
                    row = reader.execute(_PROBE, (record_id,)).fetchone()
                    if row is not None and cached[0] == (row[0], row[1]):
                        return cached[1]
                row = reader.execute(_FETCH, (record_id,)).fetchone()
            except sqlite3.Error as error:
                raise StoreError(self.path, explain(self.path, error)) from error
        if row is None:
            raise RecordNotFound(record_id)
        record = self._load(row[0])
        self._remember(record, row[0])
        return record

    def ids_with_prefix(self, prefix: str, *, limit: int) -> list[str]:
        upper = prefix_upper_bound(prefix)
        bound = "" if upper is None else " AND record_id < ?"
        sql = (f"SELECT record_id FROM {TABLE} WHERE record_id >= ?{bound} "
               f"AND substr(record_id, 1, ?) = ? ORDER BY record_id LIMIT ?")
        params = [prefix, *([upper] if upper is not None else []), len(prefix), prefix, limit]
        with self._use() as conn:
            return [row[0] for row in conn.execute(sql, params)]

    def latest(self, record_id: str) -> HandoffRecord:
        cached = self._recent.get(record_id)
        return self.get(record_id) if cached is None else cached[1]

    def _remember(self, record: HandoffRecord, body: str) -> None:
        """Keep recently read or written records parsed. A hit is still checked against the
        file's version and body size, so other writers' changes are always seen."""
        with self._cache_lock:
            recent = self._recent
            recent.pop(record.record_id, None)
            recent[record.record_id] = ((record.version, len(body)), record)  # len: characters
            if len(recent) > _RECENT:
                del recent[next(iter(recent))]

    def replace(self, record: HandoffRecord, *, expected_version: int) -> None:
        self.replace_many(((record, expected_version),))

    def replace_many(self, changes: Sequence[tuple[HandoffRecord, int]]) -> None:
        rows = [(record, expected, _row(record)) for record, expected in changes]

        def update(conn: sqlite3.Connection) -> list[tuple[HandoffRecord, str]]:
            current: dict[str, int] = {}
            for record, expected, row in rows:
                version = current.get(record.record_id, expected)
                cursor = conn.execute(_UPDATE, (row[1], row[6], row[7], row[0], version))
                if cursor.rowcount != 1:
                    actual = self._version(conn, record.record_id)
                    if actual is None:
                        raise RecordNotFound(record.record_id)
                    raise VersionConflict(record.record_id, version, actual)
                current[record.record_id] = record.version
            return [(record, row[7]) for record, _, row in rows]

        self._group.run(update)

    def _committed(self, written: object) -> None:
        """Remember what a group commit made durable (never what failed)."""
        for record, body in cast(list[tuple[HandoffRecord, str]], written):
            self._remember(record, body)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(self.path, "the store is closed")
        return self._conn

    def put_many(self, records: Iterable[HandoffRecord]) -> int:
        rows = [_row(record) for record in records]
        with self._use(write=True) as conn:
            conn.executemany(_UPSERT, rows)
        with self._cache_lock:
            self._recent.clear()
        return len(rows)

    def query(self, query: RecordQuery = ALL) -> list[HandoffRecord]:
        where, params = _where(query)
        page = " LIMIT ? OFFSET ?"
        params += [-1 if query.limit is None else query.limit, query.offset]
        sql = f"SELECT body FROM {TABLE}{where} ORDER BY created_us, seq{page}"
        with self._use() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [self._load(body) for (body,) in rows]

    def count(self, query: RecordQuery = ALL) -> int:
        where, params = _where(query)
        with self._use() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {TABLE}{where}", params).fetchone()[0])

    def due(self, *, created_before: datetime, now: datetime) -> list[HandoffRecord]:
        sql = (
            f"SELECT body FROM {TABLE} WHERE (status = 'pending' AND created_us < ?)"
            f" OR (deadline_us <= ? AND status IN {_LIVE!r}) ORDER BY created_us, seq"
        )
        with self._use() as conn:
            rows = conn.execute(sql, (_micros(created_before), _micros(now))).fetchall()
        return [self._load(body) for (body,) in rows]

    def close(self) -> None:
        with self._lock, self._read_lock:
            for conn in (self._conn, self._reader):
                if conn is not None:
                    conn.close()
            self._conn = self._reader = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _load(self, body: str) -> HandoffRecord:
        try:
            return HandoffRecord.model_validate_json(body)
        except ValueError as error:
            raise StoreError(self.path, f"a stored record is unreadable: {error}") from error

    @staticmethod
    def _version(conn: sqlite3.Connection, record_id: str) -> int | None:
        row = conn.execute(
            f"SELECT version FROM {TABLE} WHERE record_id = ?", (record_id,)
        ).fetchone()
        return None if row is None else int(row[0])


def _where(query: RecordQuery) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if query.status is not None:
        clauses.append("status = ?")
        params.append(query.status.value)
    if query.agent is not None:
        clauses.append("(from_agent = ? OR to_agent = ?)")
        params += [query.agent, query.agent]
    if query.since is not None:
        clauses.append("created_us >= ?")
        params.append(_micros(query.since))
    if query.until is not None:
        clauses.append("created_us < ?")
        params.append(_micros(query.until))
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params
