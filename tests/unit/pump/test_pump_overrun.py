"""A handler that blocks the event loop cannot be interrupted by its timeout: the pump measures
its wall time, reports the overrun and answers the caller with `timeout` all the same."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from engine.pump import HandlerMetadata, HandlerResponse, Pump
from tests.patience import HANG_S
from tests.unit.pump.test_pump_pump import Result, Task, pipeline, run


async def blocking(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
    time.sleep(0.3)  # a busy synchronous call inside an async handler: the loop is stuck
    return HandlerResponse.respond(Result(value="late"))


class LagProbe:
    """Measures event-loop lag: how late a task that sleeps `period` seconds wakes up."""

    def __init__(self, period: float = 0.01) -> None:
        self.period = period
        self.worst = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            before = loop.time()
            await asyncio.sleep(self.period)
            self.worst = max(self.worst, loop.time() - before - self.period)


def test_a_handler_that_blocks_past_its_timeout_is_reported_as_an_overrun(
    caplog: pytest.LogCaptureFixture,
) -> None:
    probe = LagProbe()

    async def main() -> Any:
        stop = asyncio.Event()
        watching = asyncio.create_task(probe.run(stop))
        async with Pump(pipeline(blocking, timeout=0.05)) as pump:
            await asyncio.sleep(0.02)
            reply = await pump.request("lead", {"text": "x"})
            stats = pump.stats()
        stop.set()
        await watching
        return reply, stats

    with caplog.at_level(logging.WARNING, logger="engine.pump"):
        reply, stats = run(main())
    assert probe.worst >= 0.2  # the probe saw the loop stall: the timeout could not fire
    assert reply == Result(value="error:timeout")  # the late answer is not delivered
    assert stats.errors["timeout"] == 1 and stats.dropped["overrun"] == 1
    warning = next(r.getMessage() for r in caplog.records if "blocked the event loop" in
                   r.getMessage())
    assert "worker" in warning and "0.05" in warning


def test_an_awaiting_handler_inside_its_timeout_is_no_overrun() -> None:
    async def quick(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
        await asyncio.sleep(0.001)
        return HandlerResponse.respond(Result(value="ok"))

    async def main() -> Any:
        async with Pump(pipeline(quick, timeout=HANG_S)) as pump:
            return await pump.request("lead", {"text": "x"}), pump.stats()

    reply, stats = run(main())
    assert reply == Result(value="ok") and stats.dropped.get("overrun", 0) == 0
