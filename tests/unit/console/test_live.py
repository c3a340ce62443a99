"""The console's view of a watched config: reload results, and waking the pages that follow."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from engine.console.live import LiveConfig
from engine.runtime.engine import Engine

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
                waiter = asyncio.create_task(live.changed(since=live.generation, timeout=30))
                await asyncio.sleep(0)
                routing.write_text(edit, encoding="utf-8")
                await asyncio.to_thread(engine.reload)  # a reload off the loop, as watching does
                generation = await waiter
                seen.append((generation, live.last.outcome, len(live.last.issues)))
            assert live.last.version == engine.version != live.last.issues[0].file
            return seen

    assert asyncio.run(follow()) == [(1, "applied", 0), (2, "rejected", 1)]
