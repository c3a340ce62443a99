"""`Notifier`: sends a PostgreSQL store's change notifications (id, version, status and the
writing store's origin; never content) once writes are durable. Never writes a record.

Why not inside the write transactions: a transaction that runs NOTIFY holds a database-wide lock
until its commit is flushed, so notifying inside them would queue every replica's commits behind
one disk flush each. A batch of notifications is instead sent right after the commit, on the
same connection (no thread to wake, no connection of its own), in a transaction that does not
wait for the disk (notifications are not durable anyway): by the procedure that wrote a batch
of moves, in the same call (see migration 4 in `postgres_migrations`), or else by one
statement of its own, sent from here.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from json.encoder import encode_basestring_ascii as _quoted

import psycopg

from engine.records.models import HandoffRecord
from engine.stores.postgres_schema import explain

log = logging.getLogger("engine.stores.postgres")

_ASYNC = "set_config('synchronous_commit', 'off', true)"  # this statement's transaction only
_SEND = (  # the payloads as one text parameter: a text[] costs an escape pass per quote
    "SELECT count(pg_notify(%s, payload))"
    f" FROM {_ASYNC}, unnest(string_to_array(%s, E'\\n')) AS payload"
)


class Notifier:
    """Sends notifications for `channel` on the connection that committed the writes; if that
    fails, once more on a new connection from `connection` (not a pooled one: with a pool of
    one, the committing batch's leader still holds the only connection).

    `sent` counts delivered notifications, `dropped` those given up (the other replicas'
    waiters then see the change at their next re-read).
    """

    def __init__(
        self,
        connection: Callable[[], AbstractContextManager[psycopg.Connection]],
        *,
        channel: str,
        origin: str,
        location: str,
    ) -> None:
        self._connection = connection
        self._channel = channel
        self._quoted_origin = _quoted(origin)
        self._location = location
        self._counts = threading.Lock()  # leaders of concurrent batches send at once
        self.sent = 0
        self.dropped = 0

    def payload(self, record: HandoffRecord) -> str:
        """The notification of `record`'s new version and status: the JSON object
        `json.dumps({"id": ..., "version": ..., "status": ..., "origin": ...})` writes, on one
        line, formatted directly (one per move: a tenth of the dict-and-encoder's time)."""
        record_id = _quoted(record.record_id)  # escaped, ASCII only: never a line break
        return (f'{{"id": {record_id}, "version": {record.version:d}, "status":'
                f' "{record.status.value}", "origin": {self._quoted_origin}}}')

    def send(self, conn: psycopg.Connection, payloads: list[str], sent: bool = False) -> None:
        """Send `payloads` on `conn` (an autocommit connection whose writes just committed),
        unless the statement that wrote them already `sent` them; never raises."""
        if sent:
            with self._counts:
                self.sent += len(payloads)
            return
        if not payloads:
            return
        try:
            self._send(conn, payloads)
        except psycopg.Error:
            try:
                with self._connection() as fresh:
                    self._send(fresh, payloads)
            except Exception as error:  # the write is durable: report, never fail the writer
                with self._counts:
                    self.dropped += len(payloads)
                log.warning("dropped %d change notification(s) of %s: %s", len(payloads),
                            self._location, explain(error))

    def _send(self, conn: psycopg.Connection, payloads: list[str]) -> None:
        conn.execute(_SEND, (self._channel, "\n".join(payloads)), prepare=True)
        with self._counts:
            self.sent += len(payloads)
