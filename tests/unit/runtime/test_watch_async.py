"""ConfigWatcher (task form): `async with engine.watcher()`, builds off the loop, clean stop."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot
from engine.runtime import watch
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.runtime.watch import WatchOptions
from tests.patience import HANG_S

FAST = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None)


async def until(predicate: Any, what: str, *, timeout: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.005)


def test_async_watcher_builds_off_the_loop_and_swaps_on_it(config_folder: Any) -> None:
    build_threads: list[int] = []

    def load(path: Path) -> Snapshot:
        build_threads.append(threading.get_ident())
        return load_config(path)

    engine = Engine(config_folder.path, load=load)
    del build_threads[:]  # the start-up load, made by the caller
    swap_threads: list[int] = []
    hook_calls: list[str] = []

    async def on_reload(event: Event) -> None:  # an async hook runs on the engine's loop
        swap_threads.append(threading.get_ident())
        hook_calls.append(event.data["result"].version)

    engine.on("config_reloaded", on_reload)

    async def main() -> int:
        loop_thread = threading.get_ident()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.001)
                ticks += 1

        tick_task = asyncio.create_task(ticker())
        async with engine.watcher(options=FAST) as watcher:
            await until(watcher.ready.is_set, "the watch to start")
            for target in ("investment_advisor", "compliance_desk"):
                version = config_folder.write_routing(target)
                before = ticks
                await until(lambda v=version: engine.version == v, f"{target} to serve")
                assert ticks > before  # the loop kept running while the build ran
            await until(lambda: len(hook_calls) == 2, "both async hooks")
        tick_task.cancel()
        return loop_thread

    loop_thread = asyncio.run(main())
    assert build_threads and loop_thread not in build_threads
    assert swap_threads == [loop_thread, loop_thread]
    assert hook_calls == [config_folder.versions["investment_advisor"],
                          config_folder.versions["compliance_desk"]]
    engine.close()


def test_async_watcher_rejects_and_keeps_serving(config_folder: Any) -> None:
    engine = Engine(config_folder.path)
    serving = engine.snapshot

    async def main() -> None:
        async with engine.watcher(options=FAST) as watcher:
            await until(watcher.ready.is_set, "the watch to start")
            config_folder.break_routing("dangling")
            await until(lambda: engine.reloader.stats.rejected == 1, "the rejection")
            assert engine.snapshot is serving

    asyncio.run(main())
    engine.close()


def test_async_stop_leaves_no_task_or_thread(config_folder: Any) -> None:
    engine = Engine(config_folder.path)

    async def main() -> set[str]:
        # A tick longer than the wait below: a stop that waited for the tick would hang.
        watcher = engine.watcher(options=WatchOptions(tick_ms=int(4 * HANG_S * 1000)))
        async with watcher:
            await asyncio.sleep(0.05)
        return {task.get_name() for task in asyncio.all_tasks()} - {"main"}

    left = asyncio.run(asyncio.wait_for(main(), HANG_S))
    assert not any("watch" in name for name in left), left
    assert not any(t.name == "handoff-config-watch" for t in threading.enumerate())
    engine.close()


def test_explicit_areload_from_a_coroutine(config_folder: Any) -> None:
    engine = Engine(config_folder.path)
    version = config_folder.write_routing("compliance_desk")
    result = asyncio.run(engine.watcher().areload())
    assert result.outcome == "applied" and engine.version == version
    engine.close()


def test_builds_run_with_a_short_switch_interval_that_is_restored(config_folder: Any) -> None:
    seen: list[float] = []

    def load(path: Path) -> Snapshot:
        seen.append(sys.getswitchinterval())
        return load_config(path)

    engine = Engine(config_folder.path, load=load)
    before = sys.getswitchinterval()
    config_folder.write_routing("compliance_desk")
    asyncio.run(engine.watcher(options=WatchOptions(switch_interval_s=0.0007)).areload())
    config_folder.write_routing("investment_advisor")
    asyncio.run(engine.watcher(options=WatchOptions(switch_interval_s=None)).areload())
    assert seen[1:] == [0.0007, before]  # lowered only while the async build ran
    assert sys.getswitchinterval() == before
    engine.close()


def test_what_the_watch_imports_on_first_use_is_imported_off_the_loop(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """watchfiles' first `awatch` imports anyio's asyncio backend: tens of milliseconds of module
    code that would stall the caller's loop while the watcher starts. It is imported on a worker
    thread first, and it is the module the watch needs."""
    assert watch.WATCH_BACKEND in sys.modules or importlib.util.find_spec(watch.WATCH_BACKEND)
    threads: list[int] = []
    imported = watch.import_watch_backend
    monkeypatch.setattr(watch, "import_watch_backend",
                        lambda: (threads.append(threading.get_ident()), imported())[1])
    engine = Engine(config_folder.path)

    async def main() -> int:
        async with engine.watcher(options=FAST) as watcher:
            await until(watcher.ready.is_set, "the watch to start")
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    engine.close()
    assert threads and loop_thread not in threads
    assert watch.WATCH_BACKEND in sys.modules


def test_the_thread_pool_asyncio_hands_work_to_is_imported_with_the_engine() -> None:
    """Not on the caller's loop when the watcher first hands a build to a thread."""
    code = ("import sys; import engine.runtime.watch; "
            "sys.exit('concurrent.futures.thread' not in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
