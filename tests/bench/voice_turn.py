"""The voice-turn budget, measured the way a caller's event loop sees it: a probe task sleeps
1 ms in a loop (as a voice runtime's audio task would) and records how late each wake-up is,
first on an idle loop, then while `async with engine.watcher()` starts (until it is ready),
then while one-file edits of each kind of file reload the set. Prints one JSON line: the worst
and p99 lateness (ms) of each phase. Run in a fresh process, so the watcher starts cold.
Run: python tests/bench/voice_turn.py FOLDER [--edits 5] [--wait-s 2.5]"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from engine.runtime.engine import Engine

PERIOD_S = 0.001
IDLE_S = 3.0
AFTER_S = 0.05
"""How long after each phase the probe still counts: a stall just after the swap belongs to it."""
EDITS = {
    "engine.yaml": ("engine.yaml", "name: generated", "name: generated-{n}"),
    "routing.yaml": ("routing.yaml", "fallback: agent_0000", "fallback: agent_{n:04d}"),
    "capabilities.yaml": ("capabilities.yaml", "description:", "description: Edit {n}."),
    "an agent": ("agents/agent_0005.yaml", "Generated agent", "Edit {n} of agent"),
}
"""Kind of file -> (file, text replaced, its replacement for edit n): each edit applies."""


async def probe(samples: list[tuple[float, float]], stop: asyncio.Event) -> None:
    """(wake-up time, lateness beyond the 1 ms asked for) of every sleep until `stop`."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(PERIOD_S)
        woke = time.perf_counter()
        samples.append((woke, woke - started - PERIOD_S))


def save(path: Path, text: str) -> None:
    """An editor's save: a temporary file renamed over the old one."""
    temp = path.with_name(f".{path.name}.swp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def phases(folder: Path, edits: int, wait_s: float) -> dict[str, list[tuple[float, float]]]:
    """The windows (start, end) of each phase, with the probe running throughout."""
    engine = Engine(folder, sweep_interval_s=None)
    await asyncio.sleep(wait_s)  # the files age past the racy window, as a real set's are
    samples: list[tuple[float, float]] = []
    stop = asyncio.Event()
    task = asyncio.create_task(probe(samples, stop))
    windows: dict[str, list[tuple[float, float]]] = {}
    started = time.perf_counter()
    await asyncio.sleep(IDLE_S)
    windows["idle loop"] = [(started, time.perf_counter())]
    started = time.perf_counter()
    async with engine.watcher() as watcher:
        while not watcher.ready.is_set():
            await asyncio.sleep(PERIOD_S)
        windows["watcher start"] = [(started, time.perf_counter() + AFTER_S)]
        await asyncio.sleep(0.3)
        for kind, (relative, old, new) in EDITS.items():
            path = folder / relative
            original = path.read_text(encoding="utf-8")
            for n in range(1, edits + 1):
                applied = engine.reloader.stats.applied
                started = time.perf_counter()
                save(path, original.replace(old, new.format(n=n), 1))
                while engine.reloader.stats.applied == applied:
                    await asyncio.sleep(PERIOD_S)
                windows.setdefault(kind, []).append((started, time.perf_counter() + AFTER_S))
                await asyncio.sleep(AFTER_S + 0.05)
            save(path, original)
            await asyncio.sleep(0.3)
    stop.set()
    await task
    engine.close()
    return {name: [lag for woke, lag in samples if any(a <= woke <= b for a, b in spans)]
            for name, spans in windows.items()}


def summary(lags: list[float]) -> dict[str, float]:
    ordered = sorted(lags)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"worst_ms": ordered[-1] * 1000, "p99_ms": p99 * 1000, "samples": len(ordered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--edits", type=int, default=5, help="edits of each kind of file")
    parser.add_argument("--wait-s", type=float, default=2.5)
    args = parser.parse_args()
    found = asyncio.run(phases(args.folder, args.edits, args.wait_s))
    print(json.dumps({name: summary(lags) for name, lags in found.items()}))


if __name__ == "__main__":
    main()
