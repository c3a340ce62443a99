"""`Notifier`: sends a PostgreSQL store's change notifications (id, version, status and the
writing store's origin; never content) from its own thread and connection, once writes are
durable. Never writes a record.

Why apart from the writes: a transaction that runs NOTIFY holds a database-wide lock until its
commit is flushed, so notifying inside the write transactions would queue every replica's
commits behind one disk flush each. Here a batch of notifications is one short transaction that
does not wait for the disk (notifications are not durable anyway).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable

import psycopg

from engine.lifecycle.models import HandoffRecord
from engine.stores.postgres_schema import explain

log = logging.getLogger("engine.stores.postgres")

_SEND = "SELECT pg_notify(%s, payload) FROM unnest(%s::text[]) AS payload"
_RETRY_S = 0.2  # wait before the one retry of a batch that failed


class Notifier:
    """Queues notifications for `channel` and sends each batch from one background thread.

    `sent` counts delivered notifications, `dropped` those given up after a failed retry (the
    other replicas' waiters then see the change at their next re-read).
    """

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection],
        *,
        channel: str,
        origin: str,
        location: str,
    ) -> None:
        self._connect = connect
        self._channel = channel
        self._origin = origin
        self._location = location
        self._cond = threading.Condition()
        self._pending: list[str] = []
        self._closing = False
        self._thread: threading.Thread | None = None
        self.sent = 0
        self.dropped = 0

    def send(self, records: Iterable[HandoffRecord]) -> None:
        """Queue a notification of each record's new version and status; never blocks."""
        payloads = [
            json.dumps({"id": record.record_id, "version": record.version,
                        "status": record.status.value, "origin": self._origin})
            for record in records
        ]
        if not payloads:
            return
        with self._cond:
            if self._closing:
                return
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="handoff-notifier", daemon=True
                )
                self._thread.start()
            self._pending += payloads
            self._cond.notify()

    def close(self, *, timeout_s: float = 5.0) -> None:
        """Send what is queued, then stop the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout_s)

    def _run(self) -> None:
        conn: psycopg.Connection | None = None
        while True:
            with self._cond:
                while not self._pending and not self._closing:
                    self._cond.wait()
                if not self._pending:
                    break
                batch, self._pending = self._pending, []
            conn = self._deliver(conn, batch)
        if conn is not None:
            conn.close()

    def _deliver(
        self, conn: psycopg.Connection | None, batch: list[str]
    ) -> psycopg.Connection | None:
        """Send `batch`, reconnecting and retrying once; returns the connection to reuse."""
        for attempt in (1, 2):
            try:
                if conn is None or conn.closed:
                    conn = self._connect()
                    conn.execute("SET synchronous_commit = off")
                conn.execute(_SEND, (self._channel, batch), prepare=True)
                self.sent += len(batch)
                return conn
            except psycopg.Error as error:
                if conn is not None:
                    conn.close()
                conn = None
                if attempt == 2:
                    self.dropped += len(batch)
                    log.warning("dropped %d change notification(s) of %s: %s",
                                len(batch), self._location, explain(error))
                else:
                    threading.Event().wait(_RETRY_S)
        return conn
