"""Group commit for `PostgresStore`: single-row writes of concurrent sessions share one
transaction, one round trip and one commit.

A writer queues its statement; if fewer than `in_flight` batches are being committed it leads:
it takes every queued statement, sends them between BEGIN and COMMIT in one pipeline, and
hands each its result (a second batch can run while the first waits for its WAL flush).
A write is acknowledged only after that COMMIT returned: grouping never acknowledges early.
Statements run in record-id order, so concurrent batches lock rows in one order and cannot
deadlock. No record SQL here: writers bring statements that select one count.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import psycopg

from engine.errors import StoreError


class _Ticket:
    __slots__ = ("count", "error", "finished", "key", "lead", "params", "sql", "taken", "woken")

    def __init__(self, key: str, sql: str, params: tuple[Any, ...]) -> None:
        self.key = key
        self.sql = sql
        self.params = params
        self.count = 0
        self.error: BaseException | None = None
        self.lead = False  # holds a batch slot: leads a batch if any is left, then passes it on
        self.taken = False  # in a batch that a leader is committing
        self.finished = threading.Event()  # its batch is committed (or failed)
        self.woken = threading.Event()  # finished, or handed a batch slot


class GroupCommit:
    """Runs single-row write statements in shared transactions on pooled connections.

    `connection()` lends a connection and turns psycopg errors into `StoreError`s;
    `in_flight` batches may be committing at once. `commits` and `writes` count the work
    (writes / commits = the mean batch size).
    """

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[psycopg.Connection]],
        *,
        in_flight: int = 2,
    ) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self._queue: list[_Ticket] = []
        self._leaders = 0
        self.in_flight = in_flight
        self.commits = 0
        self.writes = 0

    def run(self, key: str, sql: str, params: tuple[Any, ...]) -> int:
        """Run `sql` (which selects one count) in the next shared transaction; returns the
        count once the transaction is committed, or raises what failed it."""
        ticket = _Ticket(key, sql, params)
        with self._lock:
            self._queue.append(ticket)
            if self._leaders < self.in_flight:
                self._leaders += 1
                ticket.lead = True
        if not ticket.lead:
            ticket.woken.wait()  # committed by someone's batch, or handed a free slot
        if ticket.lead:
            try:
                with self._lock:  # this ticket may sit in a batch taken since the hand-over
                    batch, self._queue = ([], self._queue) if ticket.taken else (self._queue, [])
                    for queued in batch:
                        queued.taken = True
                if batch:
                    self._commit(batch)
            finally:
                self._pass_slot()
        ticket.finished.wait()
        if ticket.error is not None:
            raise ticket.error
        return ticket.count

    def _pass_slot(self) -> None:
        """Hand this batch slot to the first writer still waiting in the queue, or free it.
        Only the woken writer runs: no herd of threads wakes up to find nothing to do."""
        with self._lock:
            for waiting in self._queue:
                if not waiting.lead:
                    waiting.lead = True
                    waiting.woken.set()
                    return
            self._leaders -= 1

    def _commit(self, batch: list[_Ticket]) -> None:
        batch.sort(key=lambda ticket: ticket.key)  # stable: one record's writes keep order
        try:
            with self._connection() as conn:
                if len(batch) == 1:  # alone: the statement is its own transaction
                    cursors = [conn.execute(batch[0].sql, batch[0].params, prepare=True)]
                else:
                    with conn.pipeline(), conn.transaction():
                        cursors = [conn.execute(t.sql, t.params, prepare=True) for t in batch]
                for ticket, cursor in zip(batch, cursors, strict=True):
                    found = cursor.fetchone()
                    ticket.count = 0 if found is None else int(found[0])
        except StoreError as error:
            for ticket in batch:  # one error object per thread: each raises its own
                ticket.error = StoreError(error.path, error.detail)
                ticket.error.__cause__ = error.__cause__
        except BaseException as error:
            for ticket in batch:
                ticket.error = error
        else:
            self.commits += 1
            self.writes += len(batch)
        finally:
            for ticket in batch:
                ticket.finished.set()
                ticket.woken.set()
