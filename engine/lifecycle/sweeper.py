"""`Sweeper`: an optional background thread that expires overdue handoffs at an interval.

It only calls `HandoffManager.expire_overdue`; stopping is clean (the thread is joined) and a
failing sweep is logged and retried at the next tick, never silently ending the thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from types import TracebackType

from engine.errors import EngineError, UsageError
from engine.lifecycle.clock import wait_limit
from engine.lifecycle.manager import HandoffManager
from engine.records.models import HandoffRecord

log = logging.getLogger(__name__)


class Sweeper:
    """Runs `manager.expire_overdue()` every `interval_s` seconds until `stop()`.

    Use as a context manager, or call `start()` and `stop()`. `sweeps` counts finished sweeps,
    `expired` the records they failed, `last_error` keeps the latest sweep error.
    `on_expired(record)` is called (on the sweeping thread) for each record a sweep expired.
    """

    def __init__(
        self,
        manager: HandoffManager,
        *,
        interval_s: float = 1.0,
        on_expired: Callable[[HandoffRecord], object] | None = None,
    ) -> None:
        if not interval_s > 0:
            raise UsageError(f"sweep interval must be > 0, got {interval_s}")
        self.manager = manager
        self.interval_s = interval_s
        self.on_expired = on_expired
        self.sweeps = 0
        self.expired = 0
        self.last_error: Exception | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Sweeper:
        if self.running:
            raise UsageError("the sweeper is already running")
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="handoff-sweeper", daemon=True)
        self._thread.start()
        return self

    def stop(self, *, timeout_s: float | None = 10.0) -> None:
        """Ask the thread to finish and wait for it, at most `timeout_s` (None or infinity: as
        long as it takes; a running sweep completes first)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait_limit(timeout_s))
            self._thread = None

    def sweep_once(self) -> int:
        """One sweep now, on the calling thread; returns how many records expired."""
        expired = self.manager.expire_overdue()
        self.sweeps += 1
        self.expired += len(expired)
        if self.on_expired is not None:
            for record in expired:
                self.on_expired(record)
        return len(expired)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.sweep_once()
            except (EngineError, OSError) as error:
                self.last_error = error
                log.warning("handoff sweep failed, retrying next tick: %s", error)

    def __enter__(self) -> Sweeper:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
