"""Benchmark: messages/s and hop latency through a 3-listener chain (a -> b -> c), the engine's
pump beside xml-pipeline 0.4.0 (seed 001, `bench` extra) in the same process. Never asserts times.
Run: python tests/bench/bench_pump.py [messages] [rounds]"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.pump import HandlerMetadata, HandlerResponse, ListenerRegistry, Pump

CHAIN = (("a", "b"), ("b", "c"), ("c", None))


@dataclass
class Run:
    seconds: float
    latencies: list[float]


class Hop(BaseModel):
    seq: int
    sent: float


@dataclass
class Recorder:
    """Hop latencies, and a window of at most `window` messages in flight."""

    n: int
    window: asyncio.Semaphore
    done: asyncio.Event
    latencies: list[float]
    finished: int = 0

    @classmethod
    def new(cls, n: int, window: int) -> Recorder:
        return cls(n, asyncio.Semaphore(window), asyncio.Event(), [])

    def finish(self, _: int) -> None:
        self.finished += 1
        self.window.release()
        if self.finished == self.n:
            self.done.set()


async def run_engine(n: int, window: int) -> Run:
    rec = Recorder.new(n, window)
    registry = ListenerRegistry()
    for name, target in CHAIN:
        registry.register(
            name,
            _engine_handler(target, rec.latencies, rec.finish),
            payload=Hop,
            peers=[target] if target else [],
        )
    async with Pump(registry) as pump:
        start = time.perf_counter()
        for seq in range(n):
            await rec.window.acquire()
            await pump.inject("a", Hop(seq=seq, sent=time.perf_counter()))
        await rec.done.wait()
        seconds = time.perf_counter() - start
    return Run(seconds, rec.latencies)


def _engine_handler(
    target: str | None, latencies: list[float], finish: Callable[[int], None]
) -> Callable[[Hop, HandlerMetadata], Awaitable[HandlerResponse | None]]:
    async def handler(payload: Hop, metadata: HandlerMetadata) -> HandlerResponse | None:
        latencies.append(time.perf_counter() - payload.sent)
        if target is None:
            finish(payload.seq)
            return None
        return HandlerResponse(Hop(seq=payload.seq, sent=time.perf_counter()), to=target)

    return handler


async def run_xml_pipeline(n: int, window: int) -> Run:
    from dataclasses import make_dataclass

    from third_party.xmlable import xmlify
    from xml_pipeline.memory import get_context_buffer
    from xml_pipeline.message_bus import thread_registry
    from xml_pipeline.message_bus.message_state import HandlerResponse as XResponse
    from xml_pipeline.message_bus.stream_pump import ListenerConfig, OrganismConfig, StreamPump

    # real (not postponed) annotations: xmlify reads the field types at decoration time
    XHop: Any = xmlify(make_dataclass("XHop", [("seq", int, 0), ("sent", float, 0.0)]))

    get_context_buffer().clear()
    thread_registry._registry = None  # a fresh global registry per round
    rec = Recorder.new(n, window)

    def make(target: str | None) -> Callable[[Any, Any], Awaitable[Any]]:
        async def handler(payload: Any, metadata: Any) -> Any:
            rec.latencies.append(time.perf_counter() - payload.sent)
            if target is None:
                rec.finish(payload.seq)
                return None
            return XResponse(payload=XHop(seq=payload.seq, sent=time.perf_counter()), to=target)

        return handler

    config = OrganismConfig(name="bench")
    for name, target in CHAIN:
        config.listeners.append(
            ListenerConfig(
                name=name,
                payload_class_path="",
                handler_path="",
                description=name,
                peers=[target] if target else [],
                payload_class=XHop,
                handler=make(target),
            )
        )
    return await _drive_xml_pipeline(StreamPump(config), XHop, rec)


async def _drive_xml_pipeline(pump: Any, hop: Any, rec: Recorder) -> Run:
    """Inject `rec.n` envelopes into a.* (as the seed's console would) and time the chain."""
    pump.register_all()
    runner = asyncio.create_task(pump.run())
    start = time.perf_counter()
    for seq in range(rec.n):
        await rec.window.acquire()
        envelope = pump._wrap_in_envelope(
            hop(seq=seq, sent=time.perf_counter()), "client", "a", str(uuid.uuid4())
        )
        await pump.inject(envelope, thread_id=str(uuid.uuid4()), from_id="client")
    await asyncio.wait_for(rec.done.wait(), 300)
    seconds = time.perf_counter() - start
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
    return Run(seconds, rec.latencies)


def summary(name: str, runs: list[Run], n: int) -> tuple[float, str]:
    best = min(runs, key=lambda r: r.seconds)
    rate = n / best.seconds
    hops = sorted(best.latencies)
    p50 = statistics.median(hops) * 1000
    p99 = hops[min(len(hops) - 1, int(len(hops) * 0.99))] * 1000
    return rate, f"{name:<22} {rate:>10.0f} {p50:>12.3f} {p99:>12.3f}"


def compare(n: int, rounds: int, window: int, label: str) -> None:
    engine = [asyncio.run(run_engine(n, window)) for _ in range(rounds)]
    seed = [asyncio.run(run_xml_pipeline(n, window)) for _ in range(rounds)]
    print(f"\n{label}: {n} messages, at most {window} in flight, best of {rounds} rounds")
    print(f"{'system':<22} {'msgs/s':>10} {'p50 hop ms':>12} {'p99 hop ms':>12}")
    ours, our_line = summary("handoff-engine pump", engine, n)
    theirs, their_line = summary("xml-pipeline 0.4.0", seed, n)
    print(our_line)
    print(their_line)
    print(f"throughput ratio: {ours / theirs:.1f}x (target >= 3x)")


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 1000
    rounds = int(argv[2]) if len(argv) > 2 else 3
    print("3-listener chain a -> b -> c (c ends the chain), both pumps in this process")
    compare(n, rounds, n, "burst (all injected at once; hop latency includes queueing)")
    compare(max(1, n // 5), rounds, 1, "one at a time (hop latency without queueing)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
