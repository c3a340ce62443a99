"""`ChangeListener`: one thread and one connection that LISTEN for a PostgreSQL store's record
changes and publish those written by other replicas. After a reconnect it asks subscribers to
re-read (a notification sent while the connection was down is gone). Never reads a record.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

import psycopg
from psycopg import sql

from engine.errors import StoreError
from engine.records.models import HandoffStatus
from engine.stores.changes import RecordChange, Subscribers
from engine.stores.postgres_schema import explain

log = logging.getLogger("engine.stores.postgres")

TICK_S = 0.25  # how often the thread looks up from the socket to check for stop
_BACKOFF_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)  # waits between reconnect attempts


class ChangeListener:
    """LISTENs on `channel` through connections from `connect`; publishes notifications whose
    origin is not `origin` (this store's own writes are published by the store itself)."""

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection],
        *,
        channel: str,
        origin: str,
        subscribers: Subscribers,
        location: str,
    ) -> None:
        self._connect = connect
        self._listen = sql.SQL("LISTEN {}").format(sql.Identifier(channel))
        self._origin = origin
        self._subscribers = subscribers
        self._location = location
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._first_error: Exception | None = None
        self._thread: threading.Thread | None = None
        self.reconnects = 0

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    def start(self, *, timeout_s: float) -> None:
        """Start the thread and wait until it listens; `StoreError` if it cannot connect."""
        self._thread = threading.Thread(target=self._run, name="handoff-listener", daemon=True)
        self._thread.start()
        if not self._listening.wait(timeout_s):
            self.stop()
            error = self._first_error
            detail = explain(error) if error is not None else "no connection in time"
            raise StoreError(self._location, f"cannot listen for changes: {detail}") from error

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(TICK_S * 4 + 1)
        self._thread = None

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.execute(self._listen)
                    if attempt or self._listening.is_set():
                        self.reconnects += 1
                        log.info("listening again on %s", self._location)
                    attempt = 0
                    self._listening.set()
                    self._subscribers.resync()  # anything sent while we were away is lost
                    self._pump(conn)
            except psycopg.Error as error:
                self._first_error = self._first_error or error
                if self._listening.is_set():
                    log.warning("change feed of %s lost (%s); reconnecting",
                                self._location, explain(error, lost=True))
                self._listening.clear()
                self._stop.wait(_BACKOFF_S[min(attempt, len(_BACKOFF_S) - 1)])
                attempt += 1
        self._listening.clear()

    def _pump(self, conn: psycopg.Connection) -> None:
        while not self._stop.is_set():
            for notify in conn.notifies(timeout=TICK_S):
                change = self._parse(notify.payload)
                if change is not None:
                    self._subscribers.publish(change)

    def _parse(self, payload: str) -> RecordChange | None:
        try:
            data = json.loads(payload)
            if data.get("origin") == self._origin:
                return None
            return RecordChange(
                str(data["id"]), int(data["version"]), HandoffStatus(data["status"]), remote=True
            )
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring a malformed change notification: %.200r", payload)
            return None
