"""The console's view of a watched config: reload results, and waking the pages that follow."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from engine.console.live import LiveConfig
from engine.runtime.engine import Engine
from engine.runtime.watch import WatchOptions
from tests.patience import HANG_S

from .conftest import BANKING


def test_a_reload_wakes_waiters_and_records_its_result(tmp_path: Path) -> None:
    config = tmp_path / "banking"
    shutil.copytree(BANKING, config)
    routing = config / "routing.yaml"
    text = routing.read_text(encoding="utf-8")

    async def follow() -> list[tuple[int, str, int]]:
        with Engine(config, sweep_interval_s=None) as engine:
            live = LiveConfig(engine)
            live.bind(asyncio.get_running_loop())
            assert (live.generation, live.last.outcome) == (0, "started")
            assert await live.changed(since=0, timeout=0.01) == 0  # nothing yet: times out
            seen = []
            for edit in (text.replace("id: file-a-claim", "id: claims-rule"),
                         text.replace("priority: 50", "priority: high")):
                waiter = asyncio.create_task(live.changed(since=live.generation, timeout=HANG_S))
                await asyncio.sleep(0)
                routing.write_text(edit, encoding="utf-8")
                await asyncio.to_thread(engine.reload)  # a reload off the loop, as watching does
                generation = await waiter
                seen.append((generation, live.last.outcome, len(live.last.issues)))
            assert live.last.version == engine.version != live.last.issues[0].file
            return seen

    assert asyncio.run(follow()) == [(1, "applied", 0), (2, "rejected", 1)]


def test_a_failing_build_shows_as_a_rejected_edit_and_the_watch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console's banner follows the watcher: a stage that raises is a rejected edit with
    an `internal-error` issue, and the next edit is applied (the watcher did not die)."""
    from engine.loading import pipeline

    config = tmp_path / "banking"
    shutil.copytree(BANKING, config)
    routing = config / "routing.yaml"
    text = routing.read_text(encoding="utf-8")
    options = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None)

    def boom(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug in the link stage")

    async def follow() -> list[tuple[str, list[str]]]:
        seen = []
        with Engine(config, sweep_interval_s=None) as engine:
            live = LiveConfig(engine)
            live.bind(asyncio.get_running_loop())
            async with engine.watcher(options=options) as watcher:
                while not watcher.ready.is_set():
                    await asyncio.sleep(0.01)
                for n, edit in enumerate((text.replace("priority: 40", "priority: 41"),
                                          text.replace("priority: 40", "priority: 42"))):
                    if n == 0:
                        monkeypatch.setattr(pipeline, "link_config", boom)
                    waiter = asyncio.create_task(
                        live.changed(since=live.generation, timeout=HANG_S))
                    await asyncio.sleep(0)
                    routing.write_text(edit, encoding="utf-8")
                    await waiter
                    monkeypatch.undo()
                    seen.append((live.last.outcome, [i.code for i in live.last.issues]))
        return seen

    assert asyncio.run(follow()) == [("rejected", ["internal-error"]), ("applied", [])]
