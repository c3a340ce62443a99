"""Change feeds: how a store tells its readers that a record moved (id, version, status only).

Stores publish here after a write is durable; `PostgresStore` also publishes what other
replicas wrote. Subscribers must be quick and must not raise; nothing here reads a record.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from engine.records.models import HandoffRecord, HandoffStatus

log = logging.getLogger("engine.stores.changes")


@dataclass(frozen=True, slots=True)
class RecordChange:
    """A record reached `version` with `status`. `remote` is True when another store object
    (another replica or process) wrote it; never carries the record's content."""

    record_id: str
    version: int
    status: HandoffStatus
    remote: bool = False


OnChange = Callable[[RecordChange], None]
OnResync = Callable[[], None]
"""Called when changes may have been missed (a feed reconnected): re-read what matters."""


@runtime_checkable
class ChangeFeed(Protocol):
    """A store that reports record changes to subscribers."""

    @property
    def sees_every_writer(self) -> bool:
        """True if changes by every writer are reported (not only this object's own)."""
        ...

    def subscribe(
        self, on_change: OnChange, *, on_resync: OnResync | None = None
    ) -> Callable[[], None]:
        """Report changes to `on_change` until the returned function is called."""
        ...


class Subscribers:
    """The subscriber list a store publishes to; thread-safe, cheap when nobody listens."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[tuple[OnChange, OnResync | None]] = []

    def __bool__(self) -> bool:
        return bool(self._entries)

    def add(self, on_change: OnChange, on_resync: OnResync | None) -> Callable[[], None]:
        entry = (on_change, on_resync)
        with self._lock:
            self._entries = [*self._entries, entry]

        def remove() -> None:
            with self._lock:
                self._entries = [e for e in self._entries if e is not entry]

        return remove

    def publish(self, change: RecordChange) -> None:
        for on_change, _ in self._entries:  # a copy-on-write list: no lock while calling
            _call(on_change, change)

    def publish_records(self, records: Iterable[HandoffRecord]) -> None:
        """Publish this store's own durable writes (`remote=False`)."""
        if self._entries:
            for record in records:
                self.publish(RecordChange(record.record_id, record.version, record.status))

    def resync(self) -> None:
        for _, on_resync in self._entries:
            if on_resync is not None:
                _call(on_resync)


def _call(function: Callable[..., None], *args: object) -> None:
    try:
        function(*args)
    except Exception:  # a subscriber's bug must not break the writer or the feed
        log.exception("change subscriber %r failed", function)
