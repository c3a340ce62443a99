"""`PostgresStore`: records in PostgreSQL, shared by every runtime replica, durable once a write
call returns, with a change feed of what every replica writes (LISTEN/NOTIFY, sent apart).

Writers never overwrite each other (an UPDATE applies only at the expected version); sweepers
claim due records with `FOR UPDATE SKIP LOCKED`. Record rules live in the lifecycle, not here.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from engine.errors import RecordNotFound, StoreError, VersionConflict
from engine.records.limits import check_storable
from engine.records.models import HandoffRecord
from engine.records.store import Expire, RestoreCounts
from engine.stores.changes import OnChange, OnResync, RecordChange, Subscribers
from engine.stores.postgres_commit import GroupCommit
from engine.stores.postgres_listen import ChangeListener
from engine.stores.postgres_notify import Notifier
from engine.stores.postgres_options import PostgresOptions
from engine.stores.postgres_reads import Reads
from engine.stores.postgres_restore import restore
from engine.stores.postgres_schema import boundary, explain, prepare
from engine.stores.postgres_sql import Statements, due_params


class PostgresStore(Reads):
    """The `Store` for several runtime replicas: one PostgreSQL schema, a connection pool.

    `PostgresStore("postgresql://user@host/db")`; keyword options (also accepted as URL query
    parameters; keywords win): `schema` ("handoff"), `pool_size` (8 connections at most),
    `statement_timeout_s` (30; 0: no limit), `connect_timeout_s` (5, also the longest wait
    for a free pooled connection). `readonly=True` never writes or migrates; `create=False`
    refuses a database without a store. A write is acknowledged only once PostgreSQL reports
    its commit durable (its `synchronous_commit` setting decides what that means); concurrent
    sessions' single writes are group-committed (a batch of moves is one statement that commits
    them, then sends their notifications; other writes send theirs right after the commit).
    """

    def __init__(
        self,
        url: str | PostgresOptions,
        *,
        readonly: bool = False,
        create: bool = True,
        schema: str | None = None,
        pool_size: int | None = None,
        statement_timeout_s: float | None = None,
        connect_timeout_s: float | None = None,
    ) -> None:
        self.options = url if isinstance(url, PostgresOptions) else PostgresOptions.parse(
            url, schema=schema, pool_size=pool_size, statement_timeout_s=statement_timeout_s,
            connect_timeout_s=connect_timeout_s,
        )
        self.origin = uuid.uuid4().hex[:16]  # marks this object's writes in notifications
        self._readonly = readonly
        self._sql = Statements.for_schema(self.options.schema)
        self._subscribers = Subscribers()
        self._recent: dict[str, tuple[str, HandoffRecord]] = {}
        self._cache_lock = threading.Lock()
        self._listener: ChangeListener | None = None
        self._listener_lock = threading.Lock()
        self._notifier = Notifier(
            lambda: self._connect("notifier"), channel=self.options.channel, origin=self.origin,
            location=self.location,
        )
        with boundary(self.location), self._connect("setup") as conn:
            prepare(conn, self.options.schema, self.location, readonly=readonly, create=create)
        self._pool: ConnectionPool | None = ConnectionPool(
            self.options.conninfo,
            kwargs={"autocommit": True, **self._connect_kwargs("pool")},
            min_size=1,
            max_size=self.options.pool_size,
            timeout=self.options.connect_timeout_s,
            name=f"handoff-{self.origin}",
            open=False,
        )
        with boundary(self.location):
            self._pool.open(wait=True, timeout=self.options.connect_timeout_s)
        channel = self.options.channel
        self._group = GroupCommit(
            self._connection, announce=self._notifier.send,
            many={self._sql.update_one: lambda rows, notes: self._sql.moves(
                rows, channel=channel, notes=notes)},
        )

    @property
    def location(self) -> str:
        return self.options.location

    @property
    def sees_every_writer(self) -> bool:
        """True while the change feed listens (every replica's writes are reported)."""
        return self._listener is not None and self._listener.listening

    def _connect_kwargs(self, role: str) -> dict[str, Any]:
        return self.options.connect_kwargs(origin=self.origin, role=role, readonly=self._readonly)

    def _connect(self, role: str) -> psycopg.Connection:
        return psycopg.connect(self.options.conninfo, autocommit=True, **self._connect_kwargs(role))

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A pooled connection; psycopg errors become `StoreError`s. After a lost connection
        the pool drops every dead connection, so the next call reconnects."""
        pool = self._pool
        if pool is None:
            raise StoreError(self.location, "the store is closed")
        lost = False
        try:
            with pool.connection() as conn:
                try:
                    yield conn
                except psycopg.Error as error:
                    lost = conn.broken
                    raise StoreError(self.location, explain(error, lost=lost)) from error
        except PoolTimeout as error:
            raise StoreError(self.location, explain(error)) from error
        finally:
            if lost:
                pool.check()

    # -- writes ----------------------------------------------------------------------------

    def add(self, record: HandoffRecord) -> None:
        check_storable(record)
        body = record.model_dump_json()
        sql, params = self._sql.insert_of(record, body)
        note = self._notifier.payload(record)
        if self._group.run(record.record_id, sql, params, note=note) != 1:
            with self._connection() as conn:
                raise VersionConflict(record.record_id, 0, self._version(conn, record.record_id))
        self._written([(record, body)])

    def replace(self, record: HandoffRecord, *, expected_version: int) -> None:
        _check_move(record)
        body = record.model_dump_json()
        sql, params = self._sql.update_of(record, body, expected_version)
        note = self._notifier.payload(record)
        if self._group.run(record.record_id, sql, params, note=note) != 1:
            with self._connection() as conn:
                self._refuse(conn, record.record_id, expected_version)
        self._written([(record, body)])

    def replace_many(self, changes: Sequence[tuple[HandoffRecord, int]]) -> None:
        versions: dict[str, int] = {}  # a record may move twice in one batch
        batch = []
        for record, expected in changes:
            _check_move(record)
            expected = versions.get(record.record_id, expected)
            batch.append((record, record.model_dump_json(), expected))
            versions[record.record_id] = record.version
        batch.sort(key=lambda change: change[0].record_id)  # row locks in one order, chains kept
        with self._connection() as conn:
            with conn.transaction():
                with conn.pipeline():
                    cursors = [
                        conn.execute(*self._sql.update_of(*change), prepare=True)
                        for change in batch
                    ]
                for cursor, (record, _, expected) in zip(cursors, batch, strict=True):
                    written = cursor.fetchone()
                    if written is None or written[0] != 1:
                        self._refuse(conn, record.record_id, expected)  # rolls the batch back
            self._announce(conn, [record for record, _, _ in batch])
        self._written((record, body) for record, body, _ in batch)

    def put_many(self, records: Iterable[HandoffRecord]) -> int:
        return self.restore(records, replace=True).written

    def restore(
        self, records: Iterable[HandoffRecord], *, replace: bool = False
    ) -> RestoreCounts:
        notes: list[str] = []
        changes: list[RecordChange] = []
        listening = bool(self._subscribers)

        def written(record: HandoffRecord) -> None:
            notes.append(self._notifier.payload(record))
            if listening:
                changes.append(RecordChange(record.record_id, record.version, record.status))

        with self._connection() as conn:
            counts = restore(conn, self._sql, records, replace=replace, written=written)
            self._notifier.send(conn, notes)
        with self._cache_lock:
            self._recent.clear()
        for change in changes:
            self._subscribers.publish(change)
        return counts

    def expire_due(
        self, *, created_before: datetime, now: datetime, expire: Expire, limit: int = 500
    ) -> list[HandoffRecord]:
        expired: list[tuple[HandoffRecord, str, int]] = []
        with self._connection() as conn:
            with conn.transaction():
                params = due_params(created_before, now, limit)
                claimed = conn.execute(self._sql.claim_due, params, prepare=False)
                for (body,) in claimed.fetchall():  # locked by this transaction: only we move them
                    current = self._load(body)
                    new = expire(current)
                    if new is not None:
                        check_storable(new, new=False)
                        expired.append((new, new.model_dump_json(), current.version))
                if expired:
                    with conn.pipeline():
                        for change in expired:
                            conn.execute(*self._sql.update_of(*change), prepare=True)
            self._announce(conn, [record for record, _, _ in expired])
        self._written((record, body) for record, body, _ in expired)
        return [record for record, _, _ in expired]

    # -- change feed and resources ---------------------------------------------------------

    def subscribe(
        self, on_change: OnChange, *, on_resync: OnResync | None = None
    ) -> Callable[[], None]:
        """Report every replica's changes; the first subscriber starts the listener thread
        (`StoreError` if it cannot connect within `connect_timeout_s`)."""
        remove = self._subscribers.add(on_change, on_resync)
        with self._listener_lock:
            if self._listener is None and self._pool is not None:
                listener = ChangeListener(
                    lambda: self._connect("listener"), channel=self.options.channel,
                    origin=self.origin, subscribers=self._subscribers, location=self.location,
                )
                try:
                    listener.start(timeout_s=self.options.connect_timeout_s)
                except StoreError:
                    remove()
                    raise
                self._listener = listener
        return remove

    def close(self) -> None:
        with self._listener_lock:
            listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------

    def _refuse(self, conn: psycopg.Connection, record_id: str, expected: int) -> None:
        actual = self._version(conn, record_id)
        if actual is None:
            raise RecordNotFound(record_id)
        raise VersionConflict(record_id, expected, actual)

    def _version(self, conn: psycopg.Connection, record_id: str) -> int | None:
        found = conn.execute(self._sql.version, (record_id,)).fetchone()
        return None if found is None else int(found[0])

    def _announce(self, conn: psycopg.Connection, records: list[HandoffRecord]) -> None:
        """Notify the other replicas of what a commit on `conn` made durable."""
        self._notifier.send(conn, [self._notifier.payload(record) for record in records])

    def _written(self, pairs: Iterable[tuple[HandoffRecord, str]]) -> None:
        """Remember and publish here what a commit made durable (never what failed); the
        other replicas were notified right after the commit."""
        done = list(pairs)
        self._remember(done)
        self._subscribers.publish_records(record for record, _ in done)


def _check_move(record: HandoffRecord) -> None:
    """`check_storable` for a move; RecordNotFound for an id no record can have (a NUL)."""
    check_storable(record, new=False)
    if "\x00" in record.record_id:
        raise RecordNotFound(record.record_id)
