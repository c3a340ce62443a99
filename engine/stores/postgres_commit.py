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
    __slots__ = ("count", "done", "error", "key", "params", "sql", "taken")

    def __init__(self, key: str, sql: str, params: tuple[Any, ...]) -> None:
        self.key = key
        self.sql = sql
        self.params = params
        self.count = 0
        self.taken = False  # in a batch some leader is committing
        self.done = False
        self.error: BaseException | None = None


class GroupCommit:
    """Runs single-row write statements in shared transactions on pooled connections.

    `connection()` lends a connection and turns psycopg errors into `StoreError`s. `commits`
    and `writes` count the work (writes / commits = the mean batch size).
    """

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[psycopg.Connection]],
        *,
        in_flight: int = 2,
    ) -> None:
        self._connection = connection
        self._cond = threading.Condition()
        self._queue: list[_Ticket] = []
        self._leaders = 0
        self.in_flight = in_flight
        self.commits = 0
        self.writes = 0

    def run(self, key: str, sql: str, params: tuple[Any, ...]) -> int:
        """Run `sql` (which selects one count) in the next shared transaction; returns the
        count once the transaction is committed, or raises what failed it."""
        ticket = _Ticket(key, sql, params)
        with self._cond:
            self._queue.append(ticket)
            while not ticket.taken and self._leaders >= self.in_flight:
                self._cond.wait()  # every batch slot is busy
            lead = not ticket.taken
            if lead:  # lead a batch of everything queued, this ticket included
                self._leaders += 1
                batch, self._queue = self._queue, []
                for queued in batch:
                    queued.taken = True
            while not lead and not ticket.done:
                self._cond.wait()  # another leader is committing this ticket
        if lead:
            try:
                self._commit(batch)
            finally:
                with self._cond:
                    self._leaders -= 1
                    self._cond.notify_all()
        if ticket.error is not None:
            raise ticket.error
        return ticket.count

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
                ticket.done = True
