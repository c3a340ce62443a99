"""Group commit for `SQLiteStore`: concurrent writers share one transaction and one fsync.

A writer queues its job, then takes the connection lock; whoever holds the lock commits every
queued job in one transaction, each inside its own SAVEPOINT, so one job's refusal (a version
conflict) fails only that job. A job counts as done only after COMMIT has returned: grouping
never acknowledges a write before it is durable. No record SQL here; jobs bring their own.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable

from engine.errors import LifecycleError

Job = Callable[[sqlite3.Connection], object]
"""Writes through the connection; raises a `LifecycleError` to refuse (only its own writes
are rolled back). What it returns is handed to `after_commit` once the commit succeeded."""


class _Ticket:
    __slots__ = ("done", "error", "job", "result")

    def __init__(self, job: Job) -> None:
        self.job = job
        self.done = False
        self.error: BaseException | None = None
        self.result: object = None


class GroupCommit:
    """Runs jobs in shared transactions on one connection guarded by `lock`.

    `connection()` returns the open connection (or raises if the store is closed);
    `translate` turns a `sqlite3.Error` into the store's own error; `after_commit` receives
    each successful job's result, with the lock still held. `commits`/`jobs` count the work.
    """

    def __init__(
        self,
        lock: threading.Lock,
        connection: Callable[[], sqlite3.Connection],
        *,
        translate: Callable[[sqlite3.Error], Exception],
        after_commit: Callable[[object], None],
    ) -> None:
        self._lock = lock
        self._connection = connection
        self._translate = translate
        self._after_commit = after_commit
        self._queue: list[_Ticket] = []
        self._queue_lock = threading.Lock()
        self.commits = 0
        self.jobs = 0

    def run(self, job: Job) -> None:
        """Run `job` in the next group commit; returns once it is durable, or raises."""
        ticket = _Ticket(job)
        with self._queue_lock:
            self._queue.append(ticket)
        with self._lock:
            if not ticket.done:  # nobody committed it while this thread waited for the lock
                self._commit_queued()
        if ticket.error is not None:
            raise ticket.error

    def _commit_queued(self) -> None:
        with self._queue_lock:
            tickets, self._queue = self._queue, []
        try:
            conn = self._connection()
            self._write(conn, tickets)
        except sqlite3.Error as error:
            for ticket in tickets:
                if ticket.error is None:
                    ticket.error = self._translate(error)
                    ticket.error.__cause__ = error
        except BaseException as error:
            for ticket in tickets:
                ticket.error = ticket.error or error
        else:
            self.commits += 1
            self.jobs += len(tickets)
            for ticket in tickets:
                if ticket.error is None:
                    self._after_commit(ticket.result)
        finally:
            for ticket in tickets:
                ticket.done = True

    @staticmethod
    def _write(conn: sqlite3.Connection, tickets: list[_Ticket]) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            alone = len(tickets) == 1  # no savepoint needed: a refusal rolls back everything
            for ticket in tickets:
                if not alone:
                    conn.execute("SAVEPOINT job")
                try:
                    ticket.result = ticket.job(conn)
                except LifecycleError as refusal:
                    conn.execute("ROLLBACK" if alone else "ROLLBACK TO job")
                    ticket.error = refusal
                if not alone:
                    conn.execute("RELEASE job")
            if conn.in_transaction:
                conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
