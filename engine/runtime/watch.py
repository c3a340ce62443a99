"""Watching a config folder with watchfiles and feeding changes to a `Reloader`.

The folder is watched, never single files: editors save by rename and Kubernetes swaps a
`..data` symlink, and neither reports the config file's own name. Bursts are debounced; a slow
poll catches anything the OS did not report; a replaced or deleted folder is watched again when
it reappears. The async form parses off the event loop and only swaps on it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from engine.runtime.reload import Reloader, ReloadResult

log = logging.getLogger("engine.watch")


@dataclass(frozen=True, slots=True)
class WatchOptions:
    """`debounce_ms`: quiet time that ends a burst of changes. `poll_interval_s`: also check
    the folder's fingerprint this often even without events (None: only on events).
    `tick_ms`: how often the watcher wakes to check for stop, poll and folder replacement."""

    debounce_ms: int = 50
    poll_interval_s: float | None = 5.0
    tick_ms: int = 200
    force_polling: bool = False


def _identity(root: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(root)
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino)


class _Cycle:
    """Decides, on each wake-up of one watch session, whether to reload or to re-watch."""

    def __init__(self, reloader: Reloader, options: WatchOptions) -> None:
        self.reloader = reloader
        self.options = options
        self.identity = _identity(reloader.root)
        self.next_poll = self._poll_deadline()

    def _poll_deadline(self) -> float | None:
        interval = self.options.poll_interval_s
        return None if interval is None else time.monotonic() + interval

    def folder_replaced(self) -> bool:
        return _identity(self.reloader.root) != self.identity

    def should_reload(self, changed: bool) -> bool:
        due = self.next_poll is not None and time.monotonic() >= self.next_poll
        if changed or due:
            self.next_poll = self._poll_deadline()
            return True
        return False


class ConfigWatcher:
    """Runs a `Reloader` whenever its config folder changes.

    Sync: `with ConfigWatcher(reloader): ...` (a daemon thread), or `start()` / `stop()`.
    Async: `async with ConfigWatcher(reloader): ...` (a task), or `await watcher.arun(stop)`.
    `on_result` is called with every reload result that is not "unchanged".
    """

    def __init__(
        self,
        reloader: Reloader,
        *,
        options: WatchOptions = WatchOptions(),
        on_result: Callable[[ReloadResult], None] | None = None,
    ) -> None:
        self.reloader = reloader
        self.options = options
        self.on_result = on_result
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._astop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    # -- sync form -------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("watcher already started")
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="handoff-config-watch", daemon=True)
        self._thread.start()

    def stop(self, *, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def __enter__(self) -> ConfigWatcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def run(self) -> None:
        """Watch until `stop()`; blocks the calling thread."""
        while not self._stop.is_set():
            if not self._wait_for_folder(self._stop.wait):
                return
            cycle = _Cycle(self.reloader, self.options)
            self._deliver(self.reloader.reload())  # edits made while the folder was away
            options = self.options
            for changes in watchfiles.watch(
                self.reloader.root, stop_event=self._stop, yield_on_timeout=True,
                debounce=options.debounce_ms, step=min(50, options.debounce_ms),
                rust_timeout=options.tick_ms, force_polling=options.force_polling or None,
            ):
                if cycle.folder_replaced():
                    break
                if cycle.should_reload(bool(changes)):
                    self._deliver(self.reloader.reload())

    # -- async form ------------------------------------------------------------------------
    async def __aenter__(self) -> ConfigWatcher:
        self._astop = asyncio.Event()
        self.reloader_loop_bind()
        self._task = asyncio.create_task(self.arun(self._astop), name="handoff-config-watch")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._astop is not None:
            self._astop.set()
        if self._task is not None:
            await self._task
            self._task = None

    def reloader_loop_bind(self) -> None:
        """Route async hooks of reload events to the running loop."""
        self.reloader.hooks.bind_loop(asyncio.get_running_loop())

    async def arun(self, stop: asyncio.Event) -> None:
        """Watch until `stop` is set. Parsing runs on a worker thread; the swap on the loop."""
        while not stop.is_set():
            if not await self._await_folder(stop):
                return
            cycle = _Cycle(self.reloader, self.options)
            await self._astep()
            options = self.options
            async for changes in watchfiles.awatch(
                self.reloader.root, stop_event=stop, yield_on_timeout=True,
                debounce=options.debounce_ms, step=min(50, options.debounce_ms),
                rust_timeout=options.tick_ms, force_polling=options.force_polling or None,
            ):
                if cycle.folder_replaced():
                    break
                if cycle.should_reload(bool(changes)):
                    await self._astep()

    async def _astep(self) -> None:
        candidate = await asyncio.to_thread(self.reloader.build)
        self._deliver(self.reloader.apply(candidate))

    # -- shared ----------------------------------------------------------------------------
    def _deliver(self, result: ReloadResult) -> None:
        if result.outcome != "unchanged" and self.on_result is not None:
            self.on_result(result)

    def _wait_for_folder(self, wait: Callable[[float], bool]) -> bool:
        """Block until the folder exists; False if asked to stop first."""
        while not self.reloader.root.is_dir():
            if wait(self.options.tick_ms / 1000):
                return False
        return True

    async def _await_folder(self, stop: asyncio.Event) -> bool:
        while not self.reloader.root.is_dir():
            try:
                await asyncio.wait_for(stop.wait(), self.options.tick_ms / 1000)
                return False
            except asyncio.TimeoutError:
                continue
        return not stop.is_set()
