"""`SQLiteStore`: records in one SQLite file (WAL), durable once a write call returns.

A write returns only after the commit holding it (concurrent writes share one commit). Writers
never overwrite each other: an UPDATE applies only at the expected record version.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import cast

from engine.errors import RecordNotFound, StoreError, VersionConflict
from engine.records.limits import check_storable
from engine.records.models import HandoffRecord
from engine.records.store import ALL, Expire, RecordQuery, RestoreCounts, prefix_upper_bound
from engine.stores.changes import OnChange, OnResync, RecordChange, Subscribers
from engine.stores.sqlite_commit import GroupCommit
from engine.stores.sqlite_rows import FETCH, INSERT, LIVE, PROBE, UPDATE, micros
from engine.stores.sqlite_rows import restore as restore_rows
from engine.stores.sqlite_rows import row as row_of
from engine.stores.sqlite_rows import where as where_of
from engine.stores.sqlite_schema import TABLE, Synchronous, boundary, connect, explain

_RECENT = 4096  # records kept parsed; a hit still checks the version in the file


class SQLiteStore:
    """The durable `Store`: one SQLite file in WAL mode, shared safely by several processes.

    Writes from concurrent threads are group-committed: one transaction and one fsync for all
    that are waiting, each acknowledged only once that commit returned.

    `synchronous="FULL"` (default) fsyncs every commit, so an acknowledged move survives power
    loss; `"NORMAL"` survives a crash of the process but not of the machine. `readonly=True`
    opens an existing store for reading only; `create=False` refuses to create a new file.
    Its change feed reports this object's own writes only (other processes are not seen).
    """

    sees_every_writer = False

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
        self._subscribers = Subscribers()
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
        check_storable(record)
        row = row_of(record)

        def insert(conn: sqlite3.Connection) -> list[tuple[HandoffRecord, str]]:
            try:
                conn.execute(INSERT, row)
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
                    row = reader.execute(PROBE, (record_id,)).fetchone()
                    if row is not None and cached[0] == (row[0], row[1]):
                        return cached[1]
                row = reader.execute(FETCH, (record_id,)).fetchone()
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
        for record, _ in changes:
            check_storable(record, new=False)
        rows = [(record, expected, row_of(record)) for record, expected in changes]

        def update(conn: sqlite3.Connection) -> list[tuple[HandoffRecord, str]]:
            current: dict[str, int] = {}
            for record, expected, row in rows:
                version = current.get(record.record_id, expected)
                cursor = conn.execute(UPDATE, (row[1], row[6], row[7], row[0], version))
                if cursor.rowcount != 1:
                    actual = self._version(conn, record.record_id)
                    if actual is None:
                        raise RecordNotFound(record.record_id)
                    raise VersionConflict(record.record_id, version, actual)
                current[record.record_id] = record.version
            return [(record, row[7]) for record, _, row in rows]

        self._group.run(update)

    def _committed(self, written: object) -> None:
        """Remember and publish what a group commit made durable (never what failed)."""
        pairs = cast(list[tuple[HandoffRecord, str]], written)
        for record, body in pairs:
            self._remember(record, body)
        self._subscribers.publish_records(record for record, _ in pairs)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(self.path, "the store is closed")
        return self._conn

    def put_many(self, records: Iterable[HandoffRecord]) -> int:
        return self.restore(records, replace=True).written

    def restore(
        self, records: Iterable[HandoffRecord], *, replace: bool = False
    ) -> RestoreCounts:
        changes: list[RecordChange] | None = [] if self._subscribers else None
        with self._use(write=True) as conn:
            counts = restore_rows(conn, records, replace=replace, changes=changes)
        with self._cache_lock:
            self._recent.clear()
        for change in changes or ():
            self._subscribers.publish(change)
        return counts

    def query(self, query: RecordQuery = ALL) -> list[HandoffRecord]:
        where, params = where_of(query)
        page = " LIMIT ? OFFSET ?"
        params += [-1 if query.limit is None else query.limit, query.offset]
        sql = f"SELECT body FROM {TABLE}{where} ORDER BY created_us, seq{page}"
        with self._use() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [self._load(body) for (body,) in rows]

    def count(self, query: RecordQuery = ALL) -> int:
        where, params = where_of(query)
        with self._use() as conn:
            return int(conn.execute(f"SELECT count(*) FROM {TABLE}{where}", params).fetchone()[0])

    def due(self, *, created_before: datetime, now: datetime) -> list[HandoffRecord]:
        with self._use() as conn:
            return self._due(conn, created_before, now, None)

    def _due(
        self, conn: sqlite3.Connection, created_before: datetime, now: datetime, limit: int | None
    ) -> list[HandoffRecord]:
        sql = (
            f"SELECT body FROM {TABLE} WHERE (status = 'pending' AND created_us < ?)"
            f" OR (deadline_us <= ? AND status IN {LIVE!r}) ORDER BY created_us, seq LIMIT ?"
        )
        params = (micros(created_before), micros(now), -1 if limit is None else limit)
        return [self._load(body) for (body,) in conn.execute(sql, params).fetchall()]

    def expire_due(
        self, *, created_before: datetime, now: datetime, expire: Expire, limit: int = 500
    ) -> list[HandoffRecord]:
        written: list[tuple[HandoffRecord, str]] = []
        with self._use(write=True) as conn:  # BEGIN IMMEDIATE: one writer across processes
            for current in self._due(conn, created_before, now, limit):
                new = expire(current)
                if new is not None:
                    check_storable(new, new=False)
                    row = row_of(new)
                    conn.execute(UPDATE, (row[1], row[6], row[7], row[0], current.version))
                    written.append((new, row[7]))
        self._committed(written)
        return [record for record, _ in written]

    def subscribe(
        self, on_change: OnChange, *, on_resync: OnResync | None = None
    ) -> Callable[[], None]:
        return self._subscribers.add(on_change, on_resync)

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

