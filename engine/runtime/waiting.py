"""Waiting until a record reaches a status, blocking (`wait`) or on the event loop (`await_`),
on any store. The store's change feed wakes a waiter (every replica's moves on PostgreSQL);
the waiter then re-reads the store, the only truth. Stores whose feed misses other writers
(SQLite used by several processes, a custom store) are polled. Never moves a record.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from engine.errors import UsageError, WaitTimeout
from engine.lifecycle.table import rows
from engine.records.models import HandoffRecord, HandoffStatus
from engine.records.store import Store
from engine.stores.changes import ChangeFeed, RecordChange


def _reachable() -> dict[HandoffStatus, frozenset[HandoffStatus]]:
    """Every status a record in each status can still get to, per the lifecycle table."""
    step: dict[HandoffStatus, set[HandoffStatus]] = {status: set() for status in HandoffStatus}
    for _, source, dest in rows():
        step[source].add(dest)
    closure = {}
    for status in HandoffStatus:
        seen: set[HandoffStatus] = set()
        frontier = set(step[status])
        while frontier:
            seen |= frontier
            frontier = {nxt for s in frontier for nxt in step[s]} - seen
        closure[status] = frozenset(seen)
    return closure


REACHABLE = _reachable()


def settled(record: HandoffRecord, wanted: frozenset[HandoffStatus]) -> bool:
    """True once `record` is in a wanted status or can no longer reach one."""
    return record.status in wanted or not (REACHABLE[record.status] & wanted)


class StatusWaiter:
    """Waits for records of one store. `poll_s`: how often to re-read when the store's feed
    does not see every writer; `safety_poll_s`: how often anyway (a missed wake-up costs at
    most this long). The store's feed is subscribed on the first wait, until `close()`."""

    def __init__(self, store: Store, *, poll_s: float = 0.1, safety_poll_s: float = 2.0) -> None:
        if poll_s <= 0 or safety_poll_s <= 0:
            raise UsageError(f"poll intervals must be > 0, got {poll_s} and {safety_poll_s}")
        self.store = store
        self.poll_s = poll_s
        self.safety_poll_s = safety_poll_s
        self._feed = store if isinstance(store, ChangeFeed) else None
        self._lock = threading.Lock()  # the wake-ups; never held while calling the store
        self._subscribe_lock = threading.Lock()
        self._wakes: dict[str, list[Callable[[], None]]] = {}
        self._unsubscribe: Callable[[], None] | None = None

    def wait(
        self, record_id: str, statuses: Iterable[HandoffStatus | str], *,
        timeout_s: float | None = None,
    ) -> HandoffRecord:
        """The record once it is in one of `statuses`, or can no longer get there (check its
        `status`); `WaitTimeout` after `timeout_s` (None: no limit)."""
        wanted = _wanted(statuses)
        woken = threading.Event()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._watching(record_id, woken.set):
            while True:
                woken.clear()  # before reading: a change after the read wakes the next wait
                record = self.store.get(record_id)
                pause = self._pause(record, wanted, deadline, timeout_s)
                if pause is None:
                    return record
                woken.wait(pause)

    async def await_(
        self, record_id: str, statuses: Iterable[HandoffStatus | str], *,
        timeout_s: float | None = None,
    ) -> HandoffRecord:
        """`wait` for the event loop: reads run on a worker thread, the loop never blocks."""
        wanted = _wanted(statuses)
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        deadline = None if timeout_s is None else time.monotonic() + timeout_s

        def wake() -> None:
            loop.call_soon_threadsafe(woken.set)

        with self._watching(record_id, wake):
            while True:
                woken.clear()
                record = await asyncio.to_thread(self.store.get, record_id)
                pause = self._pause(record, wanted, deadline, timeout_s)
                if pause is None:
                    return record
                await _until_set(woken, pause)

    def close(self) -> None:
        with self._subscribe_lock:
            unsubscribe, self._unsubscribe = self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()

    def _pause(
        self, record: HandoffRecord, wanted: frozenset[HandoffStatus],
        deadline: float | None, timeout_s: float | None,
    ) -> float | None:
        """None when the wait is over; else how long to sleep before reading again."""
        if settled(record, wanted):
            return None
        complete = self._feed is not None and self._feed.sees_every_writer
        pause = self.safety_poll_s if complete else self.poll_s
        if deadline is None or timeout_s is None:
            return pause
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            names = sorted(status.value for status in wanted)
            raise WaitTimeout(record.record_id, names, timeout_s, record.status.value)
        return min(pause, remaining)

    @contextmanager
    def _watching(self, record_id: str, wake: Callable[[], None]) -> Iterator[None]:
        self._subscribe()
        with self._lock:
            self._wakes.setdefault(record_id, []).append(wake)
        try:
            yield
        finally:
            with self._lock:
                wakes = self._wakes[record_id]
                wakes.remove(wake)
                if not wakes:
                    del self._wakes[record_id]

    def _subscribe(self) -> None:
        if self._feed is None or self._unsubscribe is not None:
            return
        with self._subscribe_lock:
            if self._unsubscribe is None:
                self._unsubscribe = self._feed.subscribe(self._changed, on_resync=self._resync)

    def _changed(self, change: RecordChange) -> None:
        with self._lock:
            wakes = list(self._wakes.get(change.record_id, ()))
        for wake in wakes:
            wake()

    def _resync(self) -> None:
        with self._lock:
            wakes = [wake for group in self._wakes.values() for wake in group]
        for wake in wakes:
            wake()


def _wanted(statuses: Iterable[HandoffStatus | str]) -> frozenset[HandoffStatus]:
    wanted = set()
    for status in statuses:
        try:
            wanted.add(HandoffStatus(status))
        except ValueError:
            known = ", ".join(s.value for s in HandoffStatus)
            raise UsageError(f"unknown status {status!r}; known: {known}") from None
    if not wanted:
        raise UsageError("wait for at least one status")
    return frozenset(wanted)


async def _until_set(event: asyncio.Event, timeout_s: float) -> None:
    """Return when `event` is set or after `timeout_s`; a cancel of the caller propagates."""
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((waiter,), timeout=timeout_s)
    finally:
        waiter.cancel()
