"""The async pump end to end: replies, failures, timeouts, limits, backpressure, shutdown."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import UsageError
from engine.pump import (
    HandlerMetadata,
    HandlerResponse,
    Limits,
    ListenerRegistry,
    Pump,
    SystemError,
    TodoRegistered,
)
from tests.patience import HANG_S


class Task(BaseModel):
    text: str


class Result(BaseModel):
    value: str


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, HANG_S))  # type: ignore[arg-type]


async def upper(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
    return HandlerResponse.respond(Result(value=payload.text.upper()))


def pipeline(worker: Callable[..., Any] = upper, **worker_options: Any) -> ListenerRegistry:
    """`lead` forwards each Task to `worker` and answers its caller with the worker's reply."""

    async def lead(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
        if isinstance(payload, Task):
            return HandlerResponse(payload, to="worker")
        return HandlerResponse.respond(payload if isinstance(payload, Result) else
                                       Result(value=f"error:{payload.code}"))

    registry = ListenerRegistry()
    registry.register("lead", lead, payload=[Task, Result], peers=["worker"], agent=True)
    registry.register("worker", worker, payload=Task, **worker_options)
    return registry


def test_request_round_trip() -> None:
    async def main() -> None:
        async with Pump(pipeline()) as pump:
            assert await pump.request("lead", {"text": "hi"}) == Result(value="HI")
            stats = pump.stats()
        assert (stats.injected, stats.handled, stats.replies, stats.in_flight) == (1, 3, 1, 0)
    run(main())


def test_a_raising_handler_gives_its_caller_a_system_error_and_the_pump_goes_on() -> None:
    async def flaky(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
        if payload.text == "boom":
            raise RuntimeError("secret internals")
        return HandlerResponse.respond(Result(value="ok"))

    async def main() -> None:
        async with Pump(pipeline(flaky)) as pump:
            assert await pump.request("lead", {"text": "boom"}) == Result(value="error:handler")
            assert await pump.request("lead", {"text": "fine"}) == Result(value="ok")
            assert pump.stats().errors == {"handler": 1}
    run(main())


def test_a_slow_handler_times_out() -> None:
    async def slow(payload: Task, metadata: HandlerMetadata) -> None:
        await asyncio.sleep(5)

    async def main() -> None:
        async with Pump(pipeline(slow, timeout=0.05)) as pump:
            assert await pump.request("lead", {"text": "x"}) == Result(value="error:timeout")
    run(main())


def test_per_listener_concurrency_limit() -> None:
    running = 0
    peak = 0

    async def busy(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return HandlerResponse.respond(Result(value=payload.text))

    async def main() -> None:
        async with Pump(pipeline(busy, concurrency=2)) as pump:
            replies = await asyncio.gather(
                *(pump.request("lead", {"text": str(i)}) for i in range(10))
            )
        assert sorted(r.value for r in replies) == sorted(str(i) for i in range(10))
    run(main())
    assert peak == 2


def test_inject_waits_for_room_in_a_full_queue() -> None:
    gate = asyncio.Event

    async def main() -> None:
        opened = gate()
        seen: list[str] = []

        async def blocked(payload: Task, metadata: HandlerMetadata) -> None:
            await opened.wait()
            seen.append(payload.text)

        registry = ListenerRegistry()
        registry.register("slow", blocked, payload=Task, concurrency=1)
        async with Pump(registry, queue_size=1) as pump:
            await pump.inject("slow", {"text": "1"})  # taken by the worker
            await asyncio.sleep(0)
            await pump.inject("slow", {"text": "2"})  # fills the queue
            third = asyncio.ensure_future(pump.inject("slow", {"text": "3"}))
            await asyncio.sleep(0.02)
            assert not third.done()
            opened.set()
            await third
            await pump.join()
        assert seen == ["1", "2", "3"]
    run(main())


def test_request_gets_none_when_the_conversation_ends_without_reply() -> None:
    async def quiet(payload: Task, metadata: HandlerMetadata) -> None:
        return None

    async def main() -> None:
        async with Pump(pipeline(quiet)) as pump:
            assert await pump.request("lead", {"text": "x"}) is None
    run(main())


def test_inject_replies_go_to_on_reply() -> None:
    replies: list[tuple[str, Any, str]] = []

    async def main() -> None:
        async with Pump(pipeline(), on_reply=lambda *r: replies.append(r)) as pump:
            thread_id = await pump.inject("lead", Task(text="a"), sender="console")
            await pump.join()
        assert replies == [("console", Result(value="A"), thread_id)]
    run(main())


def test_usage_errors() -> None:
    async def main() -> None:
        pump = Pump(pipeline())
        with pytest.raises(UsageError, match="pump is new"):
            await pump.inject("lead", {"text": "x"})
        async with pump:
            with pytest.raises(UsageError, match="no listener"):
                await pump.inject("ghost", {})
        with pytest.raises(UsageError, match="stopped"):
            await pump.request("lead", {"text": "x"})
    run(main())
    with pytest.raises(UsageError, match="queue_size"):
        Pump(pipeline(), queue_size=0)


def test_shutdown_reports_messages_still_in_flight() -> None:
    async def stuck(payload: Task, metadata: HandlerMetadata) -> None:
        await asyncio.sleep(5)

    async def main() -> None:
        pump = Pump(pipeline(stuck, concurrency=1, timeout=None))
        await pump.start()
        waiting = asyncio.ensure_future(pump.request("lead", {"text": "a"}))
        await pump.inject("lead", {"text": "b"})
        await asyncio.sleep(0.05)
        report = await pump.shutdown(timeout=0.05)
        assert not report.drained
        assert [(m.to, m.running) for m in report.in_flight] == [("worker", True),
                                                                  ("worker", False)]
        assert report.stats.dropped == {"shutdown": 2}
        reply = await waiting
        assert isinstance(reply, SystemError) and reply.code == "shutdown"
    run(main())


def test_sub_threads_of_a_responder_are_terminated_and_counted() -> None:
    async def fan(payload: Task, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, Task) and metadata.from_id == "client":
            return [HandlerResponse(Task(text="slow"), to="helper"),
                    HandlerResponse(Task(text="fast"), to="helper")]
        return HandlerResponse.respond(payload)

    async def helper(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
        await asyncio.sleep(0.05 if payload.text == "slow" else 0)
        return HandlerResponse.respond(Result(value=payload.text))

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("fan", fan, payload=[Task, Result], peers=["helper"])
        registry.register("helper", helper, payload=Task)
        async with Pump(registry) as pump:
            assert await pump.request("fan", {"text": "go"}) == Result(value="fast")
            await pump.join()
            assert pump.stats().dropped == {"terminated": 1}
    run(main())


def test_todo_until_round_trip_with_nudge() -> None:
    nudges: list[str] = []

    async def agent(payload: Any, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, Task):
            return HandlerResponse({"wait_for": "Result", "from_listener": "worker"},
                                   to="system.todo")
        if isinstance(payload, TodoRegistered):
            return HandlerResponse(Task(text="job"), to="worker")
        nudges.append(metadata.todo_nudge)
        return HandlerResponse.respond(payload)

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("agent", agent, payload=[Task, Result], peers=["worker"], agent=True)
        registry.register("worker", upper, payload=Task)
        async with Pump(registry) as pump:
            assert await pump.request("agent", {"text": "x"}) == Result(value="JOB")
            assert len(pump.todos) == 0  # closed with the finished conversation
    run(main())
    assert "SYSTEM NOTE" in nudges[0] and "Result" in nudges[0]


def test_a_send_into_a_queue_that_stays_full_is_an_overload_error_to_the_sender() -> None:
    async def main() -> None:
        release = asyncio.Event()
        seen: list[str] = []

        async def lead(payload: Any, metadata: HandlerMetadata) -> Any:
            if isinstance(payload, Task):
                return [HandlerResponse(Task(text=str(i)), to="worker") for i in range(3)]
            seen.append(payload.code)
            release.set()
            return None

        async def worker(payload: Task, metadata: HandlerMetadata) -> None:
            await release.wait()

        registry = ListenerRegistry()
        registry.register("lead", lead, payload=Task, peers=["worker"])
        registry.register("worker", worker, payload=Task, concurrency=1)
        async with Pump(registry, queue_size=1, send_timeout=0.02) as pump:
            await pump.inject("lead", {"text": "go"})
            await pump.join()
            assert seen == ["overload"]
            assert pump.stats().errors == {"overload": 1}
            assert pump.stats().handled == 4  # lead twice, worker twice: nothing vanished
    run(main())


def test_self_sends_when_listed_and_wrong_return_types() -> None:
    calls: list[tuple[bool, str]] = []

    async def looper(payload: Any, metadata: HandlerMetadata) -> Any:
        calls.append((metadata.is_self_call, type(payload).__name__))
        if isinstance(payload, SystemError):
            return HandlerResponse.respond(Result(value=payload.code))
        if isinstance(payload, Result):
            return HandlerResponse.respond(payload)
        if metadata.is_self_call:
            return "not a response"
        return HandlerResponse(Task(text="again"), to="looper")

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("looper", looper, payload=[Task, Result], peers=["looper"])
        async with Pump(registry) as pump:
            assert await pump.request("looper", {"text": "x"}) == Result(value="contract")
            assert pump.stats().errors == {"contract": 1}
    run(main())
    assert calls == [(False, "Task"), (True, "Task"), (False, "SystemError"), (True, "Result")]


def test_a_thread_that_keeps_failing_is_aborted_to_its_caller() -> None:
    async def stubborn(payload: Any, metadata: HandlerMetadata) -> Any:
        return HandlerResponse(payload if isinstance(payload, Task) else Task(text="x"),
                               to="nowhere")

    async def main() -> None:
        async with Pump(pipeline(stubborn)) as pump:
            assert await pump.request("lead", {"text": "x"}) == Result(value="error:aborted")
            assert pump.stats().errors == {"routing": 3, "aborted": 1}
    run(main())


def test_a_reply_nobody_collects_is_counted_not_lost_silently() -> None:
    async def main() -> None:
        async with Pump(pipeline()) as pump:
            await pump.inject("lead", {"text": "x"})
            await pump.join()
            assert pump.stats().dropped == {"uncollected_reply": 1}
            assert pump.stats().replies == 0
    run(main())


def ping_pong() -> ListenerRegistry:
    """Two listeners that call each other forever without ever awaiting anything."""

    def bouncer(other: str) -> Any:
        async def bounce(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
            return HandlerResponse(payload, to=other)

        return bounce

    registry = ListenerRegistry()
    registry.register("ping", bouncer("pong"), payload=Task, peers=["pong"])
    registry.register("pong", bouncer("ping"), payload=Task, peers=["ping"])
    return registry


def test_an_endless_conversation_is_ended_at_its_message_budget() -> None:
    async def main() -> None:
        async with Pump(ping_pong(), limits=Limits(max_hops=50, max_depth=1000)) as pump:
            reply = await pump.request("ping", {"text": "ping"})
            assert isinstance(reply, SystemError)
            assert (reply.code, reply.retry_allowed) == ("limit", False)
            await pump.join()
            stats = pump.stats()
        assert stats.errors == {"limit": 1} and stats.dropped == {"limit": 1}
        assert 45 <= stats.handled <= 52
    run(main())


def test_handlers_that_never_await_do_not_starve_the_event_loop() -> None:
    async def main() -> None:
        pump = Pump(ping_pong(), limits=Limits(max_hops=10**9, max_depth=10**9))
        await pump.start()
        await pump.inject("ping", {"text": "ping"})
        await asyncio.sleep(0.05)  # returns although the conversation never ends
        report = await pump.shutdown(drain=False)
        assert report.stats.handled > 10 and not report.drained
    run(main())
