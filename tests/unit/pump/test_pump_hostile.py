"""Outside senders and payloads the pump refuses with its own errors: reserved and malformed
sender names (a `UsageError` naming the sender), payloads nested past the cap or cyclic (a
`UsageError` from `inject`, a `validation` SystemError to a handler that sends one), never a
RecursionError, and the pump keeps serving."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import RegistrationError, UsageError
from engine.pump import HandlerMetadata, HandlerResponse, ListenerRegistry, Pump
from engine.pump.payloads import MAX_NESTING, PayloadSpec, nested_deeper
from tests.patience import HANG_S

DEEP = 5_000


class Box(BaseModel):
    inner: Any = None


def deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def cyclic() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, HANG_S))  # type: ignore[arg-type]


async def echo(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
    return HandlerResponse.respond(payload)


def registry(payload: Any = None) -> ListenerRegistry:
    listeners = ListenerRegistry()
    listeners.register("desk", echo, payload=payload)
    return listeners


PAYLOAD_SPECS = {"any": None, "model": Box, "schema": {"type": ["object", "array", "string"]}}
HOSTILE = {"deep dict": deep_dict(DEEP), "deep list": deep_list(DEEP), "cycle": cyclic(),
           "deep model": Box(inner=deep_dict(DEEP)), "deep text": "[" * DEEP + "]" * DEEP,
           "deep in a model dict": {"inner": deep_list(DEEP)}}


CASES = [(spec, payload) for spec in PAYLOAD_SPECS for payload in HOSTILE
         if (spec, payload) != ("any", "deep text")]  # text is passed on as it is, unparsed
REFUSED = r"payload for 'desk' rejected: .*(nested|recursion limit)"


@pytest.mark.parametrize(("spec", "payload"), CASES)
def test_a_hostile_payload_is_refused_by_inject_not_raised(spec: str, payload: str) -> None:
    async def main() -> None:
        async with Pump(registry(PAYLOAD_SPECS[spec])) as pump:
            with pytest.raises(UsageError, match=REFUSED):
                await pump.inject("desk", HOSTILE[payload])
            assert await pump.request("desk", Box(inner=1) if spec == "model" else {"ok": 1},
                                      timeout=HANG_S) is not None  # still serving

    run(main())


def test_a_handler_sending_a_deep_payload_gets_a_validation_error() -> None:
    seen: list[Any] = []

    async def lead(payload: Any, metadata: HandlerMetadata) -> HandlerResponse | None:
        if payload == "go":
            return HandlerResponse(deep_dict(DEEP), to="worker")
        seen.append(payload)
        return HandlerResponse.respond("done")

    listeners = ListenerRegistry()
    listeners.register("lead", lead, peers=["worker"])
    listeners.register("worker", echo)

    async def main() -> Any:
        async with Pump(listeners) as pump:
            return await pump.request("lead", "go", timeout=HANG_S)

    assert run(main()) == "done"
    assert seen[0].code == "validation" and "nested deeper than 64 levels" in seen[0].message


def test_payloads_up_to_the_cap_are_delivered() -> None:
    async def main() -> None:
        async with Pump(registry({"type": "object"})) as pump:
            assert await pump.request("desk", deep_dict(MAX_NESTING), timeout=HANG_S) == \
                deep_dict(MAX_NESTING)
            with pytest.raises(UsageError, match=f"nested deeper than {MAX_NESTING} levels"):
                await pump.inject("desk", deep_dict(MAX_NESTING + 1))

    run(main())


def test_nesting_is_measured_without_recursion() -> None:
    assert not nested_deeper(deep_dict(64), 64) and nested_deeper(deep_dict(65), 64)
    assert nested_deeper(deep_list(100_000), 64) and nested_deeper(cyclic(), 64)
    assert not nested_deeper([1, "x", {"a": [2, 3]}, Box(inner=(1, {2}))], 4)
    assert nested_deeper(Box(inner=deep_dict(10)), 8)
    assert PayloadSpec.any().validate([[1]]) == [[1]]


@pytest.mark.parametrize("sender", [
    "system", "system.todo", "system.todo-complete", "system.anything", "*", "",
    "   ", "client\n2026-01-01 desk: forged", "client\r", "a\u2028b", "a\u0085b",
    "a\x1b[2Jb", "a\u202eb", "x" * 257, 42,
])
def test_outside_senders_may_not_use_reserved_or_malformed_names(sender: Any) -> None:
    async def main() -> None:
        async with Pump(registry()) as pump:
            with pytest.raises(UsageError, match="sender"):
                await pump.inject("desk", {}, sender=sender)
            with pytest.raises(UsageError, match="sender"):
                await pump.request("desk", {}, sender=sender, timeout=HANG_S)
            assert pump.stats().injected == 0

    run(main())


@pytest.mark.parametrize("name", ["desk\nforged", "a\u2028b", "a\x00b"])
def test_listener_names_may_not_hold_control_characters(name: str) -> None:
    with pytest.raises(RegistrationError, match="control character"):
        ListenerRegistry().register(name, echo)
