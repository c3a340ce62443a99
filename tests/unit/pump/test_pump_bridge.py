"""The optional bridge: agent-to-agent sends become real lifecycle records."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from pydantic import BaseModel

from engine.lifecycle import FailureReason, HandoffManager, HandoffStatus
from engine.pump import HandlerMetadata, HandlerResponse, ListenerRegistry, Pump, SystemError
from engine.pump.bridge import HandoffBridge
from engine.pump.envelope import Envelope, Outcome


class Task(BaseModel):
    text: str


class Result(BaseModel):
    value: str


async def lead(payload: Any, metadata: HandlerMetadata) -> Any:
    if isinstance(payload, Task):
        return [HandlerResponse(Task(text=t), to="helper") for t in payload.text.split()]
    if isinstance(payload, SystemError):
        return HandlerResponse.respond(Result(value=payload.code))
    return HandlerResponse.respond(payload)


async def helper(payload: Task, metadata: HandlerMetadata) -> Any:
    if payload.text == "boom":
        raise RuntimeError("no")
    if payload.text == "quiet":
        return None
    await asyncio.sleep(0.2 if payload.text == "slow" else 0)
    return HandlerResponse.respond(Result(value=payload.text))


def setup() -> tuple[ListenerRegistry, HandoffManager]:
    registry = ListenerRegistry()
    registry.register("lead", lead, payload=[Task, Result], peers=["helper", "tool"], agent=True)
    registry.register("helper", helper, payload=Task, agent=True, timeout=None)
    registry.register("tool", helper, payload=Task)
    return registry, HandoffManager()


def records(manager: HandoffManager) -> list[tuple[str, str, HandoffStatus, Any]]:
    return sorted(
        (r.request.from_agent, r.request.to_agent, r.status,
         r.result.get("reply") or (r.failure.value if r.failure else None))
        for r in manager.list_records()
    )


def converse(text: str, *, shutdown_early: bool = False) -> tuple[Any, HandoffManager]:
    registry, manager = setup()
    bridge = HandoffBridge(manager, registry)

    async def main() -> Any:
        pump = Pump(registry, bridge=bridge)
        await pump.start()
        if shutdown_early:
            await pump.inject("lead", {"text": text})
            await asyncio.sleep(0.05)
            await pump.shutdown(drain=False)
            return None
        reply = await pump.request("lead", {"text": text})
        await pump.join()
        await pump.shutdown()
        return reply

    reply = asyncio.run(main())
    assert bridge.errors == 0 and bridge.open_records == {}
    return reply, manager


def test_a_reply_completes_the_handoff_with_its_payload() -> None:
    reply, manager = converse("hello")
    assert reply == Result(value="hello")
    assert records(manager) == [("lead", "helper", HandoffStatus.completed, {"value": "hello"})]
    [record] = manager.list_records()
    moves = [(m.from_.value if m.from_ else None, m.to.value) for m in record.history]
    assert moves == [(None, "pending"), ("pending", "accepted"), ("accepted", "in_progress"),
                     ("in_progress", "completed")]
    assert record.request.context["payload"] == {"text": "hello"}


def test_a_failing_handler_fails_the_handoff() -> None:
    reply, manager = converse("boom")
    assert reply == Result(value="handler")
    assert records(manager) == [("lead", "helper", HandoffStatus.failed, "error")]


def test_the_first_reply_cancels_the_sibling_handoff() -> None:
    reply, manager = converse("fast slow")
    assert reply == Result(value="fast")
    assert records(manager) == [
        ("lead", "helper", HandoffStatus.completed, {"value": "fast"}),
        ("lead", "helper", HandoffStatus.failed, FailureReason.cancelled.value),
    ]


def test_a_chain_ending_without_reply_completes_and_shutdown_cancels() -> None:
    _, manager = converse("quiet")
    assert records(manager) == [("lead", "helper", HandoffStatus.completed, None)]
    _, manager = converse("slow", shutdown_early=True)
    assert records(manager) == [("lead", "helper", HandoffStatus.failed, "cancelled")]


def _bridged(reply: Any) -> tuple[HandoffManager, str, HandoffBridge]:
    """One handoff from b to a, started, then settled with `reply`."""
    registry, manager = ListenerRegistry(), HandoffManager()
    for name in ("a", "b"):
        registry.register(name, _quiet, agent=True, peers="*")
    bridge = HandoffBridge(manager, registry)
    env = Envelope("b", "a", "t1", {"q": 1}, "root", forward=True)
    bridge.sent(env)
    record_id = bridge.open_records["t1"]
    bridge.started(env)
    bridge.settled(env, Outcome(replied=True, reply=reply))
    return manager, record_id, bridge


async def _quiet(payload: Any, metadata: HandlerMetadata) -> None:
    return None


@dataclass
class _Answer:
    text: str


@pytest.mark.parametrize("reply", [_Answer("hi"), {"at": datetime(2024, 1, 1)}, b"raw", {"ok": 1}])
def test_any_reply_a_store_can_keep_completes_the_handoff(reply: Any) -> None:
    manager, record_id, bridge = _bridged(reply)
    assert manager.get(record_id).status is HandoffStatus.completed and bridge.errors == 0


def test_a_reply_no_store_could_read_back_fails_the_handoff_instead_of_leaving_it_open() -> None:
    deep: dict[str, Any] = {}
    for _ in range(150):
        deep = {"a": deep}
    manager, record_id, bridge = _bridged(deep)
    record = manager.get(record_id)
    assert record.status is HandoffStatus.failed and bridge.open_records == {}
    assert record.response is not None and "could not be recorded" in record.response.reason
