"""Benchmark: event-loop stall while a runtime makes 1,000 handoffs on the banking set with a SQLite
store. `AsyncEngine.handoff` (store I/O on its worker thread) beside the synchronous
`Engine.handoff` called on the loop, and an idle loop as the probe's own baseline, all in one run.
A 1 ms ticker task measures how late the loop wakes it. Never asserts times.
Run: python tests/bench/bench_async.py [--handoffs 1000] [--synchronous FULL|NORMAL]"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reload import _ticker  # the same 1 ms loop probe as the reload benchmark

from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import Engine
from engine.stores import SQLiteStore

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
TURNS = (  # (sender, tool, text): triggers, rules, keywords and one policy refusal
    ("concierge", "handoff_fraud_agent", "two charges I didn't make"),
    ("concierge", None, "my card was stolen"),
    ("concierge", None, "I'd like to roll over my 401k into an ira"),
    ("fraud_agent", "handoff_card_recommendation", "a travel card please"),  # refused
)


async def _probe(work: Callable[[], Awaitable[list[float]]]) -> tuple[list[float], list[float]]:
    """Run `work` while the ticker measures the loop; returns (lags, per-call latencies).
    `work` runs once untimed first (its first calls compile validators and warm caches)."""
    await work()
    lags: list[float] = []
    stop = asyncio.Event()
    ticker = asyncio.create_task(_ticker(lags, stop))
    await asyncio.sleep(0.05)
    del lags[:]
    latencies = await work()
    stop.set()
    await ticker
    return lags, latencies


async def _idle(seconds: float) -> list[float]:
    async def wait() -> list[float]:
        await asyncio.sleep(seconds)
        return []

    return (await _probe(wait))[0]


async def _async_run(
    store: SQLiteStore, count: int, switch: float | None
) -> tuple[list[float], list[float]]:
    async with AsyncEngine(Engine(BANKING, store=store), switch_interval_s=switch) as engine:
        async def work() -> list[float]:
            latencies = []
            for n in range(count):
                sender, tool, text = TURNS[n % len(TURNS)]
                started = time.perf_counter()
                await engine.handoff(text, sender=sender, tool=tool)
                latencies.append(time.perf_counter() - started)
            return latencies

        return await _probe(work)


async def _sync_run(store: SQLiteStore, count: int) -> tuple[list[float], list[float]]:
    with Engine(BANKING, store=store) as engine:
        async def work() -> list[float]:
            latencies = []
            for n in range(count):
                sender, tool, text = TURNS[n % len(TURNS)]
                started = time.perf_counter()
                engine.handoff(text, sender=sender, tool=tool)  # blocks the loop
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0)  # a runtime yields between turns
            return latencies

        return await _probe(work)


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _line(name: str, lags: list[float], latencies: list[float], idle_worst: float) -> str:
    worst = 1000 * max(lags)
    text = (f"{name:<31} loop stall worst {worst:6.2f} ms, p99 {_ms(lags, 0.99):5.2f} ms, "
            f"p50 {_ms(lags, 0.5):5.2f} ms ({worst / idle_worst:4.1f}x idle worst), "
            f"{sum(lag > 0.002 for lag in lags)} of {len(lags)} ticks > 2 ms late")
    if latencies:
        text += (f"; handoff p50 {_ms(latencies, 0.5):5.2f} ms, "
                 f"p99 {_ms(latencies, 0.99):5.2f} ms, "
                 f"mean {1000 * statistics.fmean(latencies):5.2f} ms")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--handoffs", type=int, default=1000)
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-async-") as scratch:
        def store(name: str) -> SQLiteStore:
            return SQLiteStore(Path(scratch) / f"{name}.sqlite", synchronous=args.synchronous)

        idle = asyncio.run(_idle(2.0))
        async_lags, async_lat = asyncio.run(_async_run(store("async"), args.handoffs, 0.001))
        plain_lags, plain_lat = asyncio.run(_async_run(store("plain"), args.handoffs, None))
        sync_lags, sync_lat = asyncio.run(_sync_run(store("sync"), args.handoffs))
    idle_worst = 1000 * max(idle)
    print(f"{args.handoffs} handoffs, SQLite synchronous={args.synchronous}, banking set; "
          "1 ms ticker on the loop")
    print(_line("idle loop (probe baseline)", idle, [], idle_worst))
    print(_line("AsyncEngine.handoff (awaited)", async_lags, async_lat, idle_worst))
    print(_line("  same, GIL switch interval 5 ms", plain_lags, plain_lat, idle_worst))
    print(_line("Engine.handoff on the loop", sync_lags, sync_lat, idle_worst))
    print(f"worst stall, sync / async: {max(sync_lags) / max(async_lags):.1f}x")


if __name__ == "__main__":
    main()
