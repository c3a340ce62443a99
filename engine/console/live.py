"""The console's view of the watched config: the engine serving it, the last reload result,
and a change counter that wakes the pages following it (Server-Sent Events).

Read-only: it routes through the engine and watches its folder; it never records a handoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from engine.issues import Issue
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.runtime.reload import ReloadResult


@dataclass(frozen=True, slots=True)
class LastReload:
    """What the last reload did: `outcome` is `started`, `applied` or `rejected`; `issues`
    are located (`file:line:col`); `at` is a wall-clock time in seconds."""

    outcome: str
    version: str
    previous_version: str
    issues: tuple[Issue, ...]
    at: float


class LiveConfig:
    """An `Engine` on the config (memory store, no sweeper), followed by the console pages.

    `generation` grows with every applied or rejected reload; `changed()` waits for the next
    one. Hooks may fire on the watcher's loop or another thread: waking is thread-safe.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.generation = 0
        snapshot = engine.snapshot
        self.last = LastReload("started", snapshot.version, snapshot.version, snapshot.warnings,
                               time.time())
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        engine.on("config_reloaded", self._on_reload)
        engine.on("config_rejected", self._on_reload)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake waiters on `loop` (the server's) from now on."""
        self._loop = loop
        self._changed = asyncio.Event()

    def _on_reload(self, event: Event) -> None:
        result: ReloadResult = event.data["result"]
        self.last = LastReload(result.outcome, result.version, result.previous_version,
                               result.issues, time.time())
        self.generation += 1
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._wake)

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()  # waiters of the next change get a fresh event

    async def changed(self, *, since: int, timeout: float) -> int:
        """The generation once it differs from `since`, or after `timeout` seconds."""
        if self.generation != since or self._changed is None:
            return self.generation
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)
        return self.generation
