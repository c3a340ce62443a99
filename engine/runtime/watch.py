"""Watching a config set's folders (never single files: editors rename, Kubernetes swaps `..data`)
and feeding a `Reloader`: debounce, settle, slow poll, re-watch of a replaced folder; the async
form builds on a worker thread with a short GIL switch interval and only swaps on the loop.
Only the folders holding the set's files are watched, each on its own (never recursively: a
link to a huge tree is never walked). Never parses itself."""

from __future__ import annotations

import asyncio

# imported with the engine, not by asyncio on a caller's loop as the watcher starts:
import concurrent.futures.thread  # noqa: F401  (half its worst stall there)
import contextlib
import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import watchfiles

from engine.lifecycle.clock import wait_limit
from engine.runtime.reload import Reloader, ReloadResult
from engine.runtime.switch import switch_interval_lowered
from engine.runtime.watch_options import WatchOptions as WatchOptions  # where it was first

log = logging.getLogger("engine.watch")


def _identity(folders: tuple[Path, ...]) -> tuple[tuple[Path, int, int] | None, ...]:
    """Which folders these paths are now (a replaced or re-linked folder is another one)."""
    found: list[tuple[Path, int, int] | None] = []
    for folder in folders:
        try:
            stat = os.stat(folder)
        except OSError:
            found.append(None)
            continue
        found.append((folder, stat.st_dev, stat.st_ino))
    return tuple(found)


WATCH_BACKEND = "anyio._backends._asyncio"
"""The module `watchfiles.awatch` imports (through anyio) on its first use, on the calling
loop: tens of milliseconds of module code, so the async form imports it on a thread first."""
EVERY_FILE: frozenset[str] = frozenset()
"""What a wake-up that must look at every file of the set reports as changed."""


class _Cycle:
    """One watch session of the set's folders: decides on each wake-up whether to reload or to
    stop and watch again (a folder was deleted, replaced, re-linked, or the set now lives in
    other folders)."""

    def __init__(self, reloader: Reloader, options: WatchOptions) -> None:
        self.reloader = reloader
        self.options = options
        self.listed = reloader.folders
        self.identity = _identity(self.listed)
        self.folders = tuple(f for f in self.listed if f == reloader.root or f.is_dir())
        """What the OS watches: the folders the set lists that are there (the root always)."""
        self.first = True
        self.next_poll = self._poll_deadline()

    def _poll_deadline(self) -> float | None:
        interval = self.options.poll_interval_s
        return None if interval is None else time.monotonic() + interval

    def folder_replaced(self) -> bool:
        """Whether to watch again: the set lists other folders now, or one it lists was
        deleted, replaced, re-linked or came back. A folder that was already gone when this
        watch began is no change: the reload that follows tells the set without it."""
        listed = self.reloader.folders
        return listed != self.listed or _identity(listed) != self.identity

    def what_changed(self, changes: set[Any]) -> frozenset[str] | None:
        """What to reload for on this wake-up: the reported paths on changes; `EVERY_FILE` on
        a due poll and on the first wake-up (edits made before the OS watch was in place:
        a look at every file); None when there is nothing to do."""
        due = self.next_poll is not None and time.monotonic() >= self.next_poll
        if due or self.first:
            self.first = False
            self.next_poll = self._poll_deadline()
            return EVERY_FILE
        if changes:
            return frozenset(path for _change, path in changes)
        return None


class ConfigWatcher:
    """Runs a `Reloader` whenever its config folder changes.

    Sync: `with ConfigWatcher(reloader): ...` (a daemon thread), or `start()` / `stop()`.
    Async: `async with ConfigWatcher(reloader): ...` (a task), or `await watcher.arun(stop)`.
    `on_result` is called with every reload result that is not "unchanged" (or that is, but
    was `rebuilt`: the files were validated again). `ready` is set
    once the folder is being watched (edits before that are picked up by the first check).
    """

    def __init__(
        self,
        reloader: Reloader,
        *,
        options: WatchOptions | None = None,
        on_result: Callable[[ReloadResult], None] | None = None,
    ) -> None:
        self.reloader = reloader
        self.options = options or WatchOptions()
        self.on_result = on_result
        self.ready = threading.Event()
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

    def stop(self, *, timeout: float | None = 5.0) -> None:
        """End the watch thread, waiting at most `timeout` s (None or infinity: no limit)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait_limit(timeout))
            self._thread = None

    def __enter__(self) -> ConfigWatcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def run(self) -> None:
        """Watch until `stop()`; blocks the calling thread. Nothing a reload or the OS watch
        raises ends it: the failure is logged (and reported as a rejected reload) and the
        folder watched again."""
        while not self._stop.is_set():
            if not self._wait_for_folder(self._stop.wait):
                return
            try:
                self._watch_cycle()
            except Exception:
                log.exception("config folder %s: the watch failed; watching again",
                              self.reloader.root)
                self._stop.wait(self.options.tick_ms / 1000)

    def _watch_cycle(self) -> None:
        cycle = _Cycle(self.reloader, self.options)
        for changes in self._sync_batches(cycle):
            if cycle.folder_replaced():
                return
            changed = cycle.what_changed(changes)
            if changed is not None:
                self._supervised(partial(
                    self.reloader.reload, settle_s=self.options.settle_s, changed=changed or None
                ))
            self.ready.set()

    def _sync_batches(self, cycle: _Cycle) -> Iterator[set[Any]]:
        try:
            yield from watchfiles.watch(
                *cycle.folders, stop_event=self._stop, raise_interrupt=False,
                **self.options.watch_kwargs(),
            )
        except (OSError, RuntimeError) as error:  # the folder vanished under the OS watch
            log.info("config folder %s: watch ended (%s); watching again", self.reloader.root,
                     error)

    # -- async form ------------------------------------------------------------------------
    async def __aenter__(self) -> ConfigWatcher:
        self._astop = asyncio.Event()
        self.reloader.hooks.bind_loop(asyncio.get_running_loop())
        self._task = asyncio.create_task(self.arun(self._astop), name="handoff-config-watch")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._astop is not None:
            self._astop.set()
        if self._task is not None:
            await self._task
            self._task = None
        self.reloader.hooks.bind_loop(None)

    async def arun(self, stop: asyncio.Event) -> None:
        """Watch until `stop` is set. Parsing runs on a worker thread; the swap on the loop."""
        with switch_interval_lowered(self.options.switch_interval_s):
            await asyncio.to_thread(import_watch_backend)
        while not stop.is_set():
            if not await self._await_folder(stop):
                return
            try:
                await self._awatch_cycle(_Cycle(self.reloader, self.options), stop)
            except (OSError, RuntimeError) as error:
                log.info("config folder %s: watch ended (%s); watching again",
                         self.reloader.root, error)
            except Exception:
                log.exception("config folder %s: the watch failed; watching again",
                              self.reloader.root)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.options.tick_ms / 1000)

    async def _awatch_cycle(self, cycle: _Cycle, stop: asyncio.Event) -> None:
        batches = watchfiles.awatch(*cycle.folders, stop_event=stop, **self.options.watch_kwargs())
        async with contextlib.aclosing(batches):
            async for changes in batches:
                if cycle.folder_replaced():
                    return
                changed = cycle.what_changed(changes)
                if changed is not None:
                    await self.areload(changed=changed or None)
                self.ready.set()

    async def areload(self, *, changed: frozenset[str] | None = None) -> ReloadResult:
        """One reload from a coroutine: build on a worker thread, swap on the loop.
        `changed`: every path changed since the last reload, as the watcher reported them
        (None: look at every file)."""
        with switch_interval_lowered(self.options.switch_interval_s):
            candidate = await asyncio.to_thread(
                self.reloader.build, settle_s=self.options.settle_s, changed=changed
            )
        return self._supervised(lambda: self.reloader.apply(candidate))

    # -- shared ----------------------------------------------------------------------------
    def _supervised(self, reload: Callable[[], ReloadResult]) -> ReloadResult:
        """Run one reload and deliver its result; an exception in either is reported (a
        rejected reload, or a log line for the callback) instead of ending the watch."""
        try:
            result = reload()
        except Exception as error:
            result = self.reloader.failed(error)
        if (result.outcome != "unchanged" or result.rebuilt) and self.on_result is not None:
            try:
                self.on_result(result)
            except Exception:
                log.exception("config %s: the reload result callback failed", self.reloader.path)
        return result

    def _wait_for_folder(self, wait: Callable[[float], bool]) -> bool:
        """Block until the folder exists; False if asked to stop first."""
        while not self.reloader.root.is_dir():
            if wait(self.options.tick_ms / 1000):
                return False
        return not self._stop.is_set()

    async def _await_folder(self, stop: asyncio.Event) -> bool:
        while not self.reloader.root.is_dir():
            try:
                await asyncio.wait_for(stop.wait(), self.options.tick_ms / 1000)
                return False
            except asyncio.TimeoutError:
                continue
        return not stop.is_set()


def import_watch_backend() -> None:
    """Import `WATCH_BACKEND` (off the loop: see there); a release of anyio that names it
    otherwise has it imported on the loop as before."""
    with contextlib.suppress(ImportError):
        importlib.import_module(WATCH_BACKEND)
