"""Group commit for `PostgresStore`: single-row writes of concurrent sessions share one
transaction, one round trip and one commit.

A writer that finds fewer than `in_flight` batches committing commits its write at once. Others
queue; a leader that has committed hands the whole queue, as the next batch, to the first writer
in it, which commits it on its own thread. Every queued writer is woken exactly once: to lead a
batch, or because its batch is done. The batch grows while the one before it waits for its WAL
flush, so one batch in flight keeps the disk busy and the batches large.

A batch (even of one) of a statement that has a many-row form runs as that form: one statement
that commits the rows and then sends their change notifications, the cheapest for client and
server alike. Any other batch runs as its statements in one pipelined transaction, and its
notifications are announced after the COMMIT. A write is acknowledged only after its COMMIT
returned, and only after the batch's notifications went out, so one record's notifications
keep the order of its writes. Rows are written in record-id order: concurrent batches lock them
in one order and cannot deadlock. No record SQL here: writers bring statements that select one
count.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from engine.errors import StoreError

_MOST = 1000  # writes in one batch: a statement takes at most 65,535 parameters

Announce = Callable[[psycopg.Connection, list[str], bool], None]
"""Called with the batch's connection and the notes of the writes that applied (count 1),
after the COMMIT and before any writer of the batch is answered, and whether the batch's
statement already sent them; must not raise."""

Many = Callable[[list[tuple[Any, ...]], list[str | None]], tuple[str, Sequence[Any]]]
"""A statement's many-row form: for the rows' parameters and notes (in record-id order, each
record once), a statement that writes them, commits, sends the notes of the rows written and
selects one row: the 1-based positions of the rows written, and whether their notes went out.
Its placeholders are PostgreSQL's own (`$1`): it runs as is, not parsed by psycopg."""


class _Ticket:
    __slots__ = ("batch", "count", "error", "key", "note", "params", "sql", "wake")

    def __init__(self, key: str, sql: str, params: tuple[Any, ...], note: str | None) -> None:
        self.key = key
        self.sql = sql
        self.params = params
        self.note = note
        self.count = 0
        self.error: BaseException | None = None
        self.batch: list[_Ticket] | None = None  # set when this writer is to commit a batch
        self.wake = threading.Lock()  # released once: a batch to lead, or its batch is done
        self.wake.acquire()


class GroupCommit:
    """Runs single-row write statements in shared transactions on pooled connections.

    `connection()` lends a connection and turns psycopg errors into `StoreError`s;
    `announce` sends what a committed batch's writers asked for; `many` maps a statement to its
    many-row form; `in_flight` batches may be committing at once. `commits` and `writes` count
    the work (writes / commits = the mean batch size).
    """

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[psycopg.Connection]],
        *,
        announce: Announce | None = None,
        many: dict[str, Many] | None = None,
        in_flight: int = 1,
    ) -> None:
        self._connection = connection
        self._announce = announce
        self._many = many or {}
        self._lock = threading.Lock()
        self._queue: list[_Ticket] = []
        self._leaders = 0
        self.in_flight = in_flight
        self.commits = 0
        self.writes = 0

    def run(self, key: str, sql: str, params: tuple[Any, ...], *, note: str | None = None) -> int:
        """Run `sql` (which selects one count) in the next shared transaction; returns the
        count once the transaction is committed, or raises what failed it. `note` goes to
        `announce` if the count is 1."""
        ticket = _Ticket(key, sql, params, note)
        with self._lock:
            if self._leaders < self.in_flight:
                self._leaders += 1
                ticket.batch = [ticket]
            else:
                self._queue.append(ticket)
        if ticket.batch is None:
            ticket.wake.acquire()
        if ticket.batch is not None:
            self._lead(ticket, ticket.batch)
        if ticket.error is not None:
            raise ticket.error
        return ticket.count

    def _lead(self, leader: _Ticket, batch: list[_Ticket]) -> None:
        """Commit `batch`, hand the queue to the next leader, announce, answer the others."""
        handed_over = False
        try:
            with self._connection() as conn:
                sent = self._commit(conn, batch)
                self._hand_over(committed=len(batch))
                handed_over = True
                notes = [t.note for t in batch if t.count == 1 and t.note is not None]
                if notes and self._announce is not None:
                    self._announce(conn, notes, sent)
        except StoreError as error:
            for ticket in batch:  # one error object per thread: each raises its own
                ticket.error = StoreError(error.path, error.detail)
                ticket.error.__cause__ = error.__cause__
        except BaseException as error:
            for ticket in batch:
                ticket.error = error
        finally:
            if not handed_over:
                self._hand_over()
            for ticket in batch:
                if ticket is not leader:
                    ticket.wake.release()

    def _commit(self, conn: psycopg.Connection, batch: list[_Ticket]) -> bool:
        """Write and commit `batch`, setting each ticket's count; True if the batch's
        statement also sent the notes of the writes that applied."""
        batch.sort(key=lambda ticket: ticket.key)  # stable: one record's writes keep order
        first = batch[0]
        many = self._many.get(first.sql)
        if many is not None and _one_statement_once_per_key(batch):
            sql, params = many([t.params for t in batch], [t.note for t in batch])
            found = psycopg.RawCursor(conn).execute(sql, params, prepare=True).fetchone()
            written, sent = found if found is not None else ([], False)
            for ticket in batch:
                ticket.count = 0
            for n in written:
                batch[n - 1].count = 1
            return bool(sent)
        if len(batch) == 1:  # alone: the statement is its own transaction
            found = conn.execute(first.sql, first.params, prepare=True).fetchone()
            first.count = 0 if found is None else int(found[0])
            return False
        with conn.pipeline(), conn.transaction():
            cursors = [conn.execute(t.sql, t.params, prepare=True) for t in batch]
        for ticket, cursor in zip(batch, cursors, strict=True):
            found = cursor.fetchone()
            ticket.count = 0 if found is None else int(found[0])
        return False

    def _hand_over(self, *, committed: int = 0) -> None:
        """Give this batch slot to the first queued writer, with the whole queue as its batch,
        or free it. Only that writer wakes: no herd of threads wakes up to find nothing to do.
        `committed`: writes in the batch just committed (0: it failed)."""
        with self._lock:
            if committed:
                self.commits += 1
                self.writes += committed
            queued, self._queue = self._queue[:_MOST], self._queue[_MOST:]
            if not queued:
                self._leaders -= 1
                return
        queued[0].batch = queued
        queued[0].wake.release()


def _one_statement_once_per_key(batch: list[_Ticket]) -> bool:
    """True if a sorted batch runs one statement and names each key once."""
    sql = batch[0].sql
    return all(
        ticket.sql == sql and ticket.key != before.key
        for before, ticket in itertools.pairwise(batch)
    )
