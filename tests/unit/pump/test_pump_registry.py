"""Registration checks, the peer rule and generated usage instructions."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import RegistrationError
from engine.pump import HandlerMetadata, HandlerResponse, ListenerRegistry


class Task(BaseModel):
    text: str


class Result(BaseModel):
    value: str


async def echo(payload: Task, metadata: HandlerMetadata) -> HandlerResponse:
    """Reply to the caller with the text upper-cased."""
    return HandlerResponse.respond(Result(value=payload.text.upper()))


async def sink(payload: object, metadata: HandlerMetadata) -> None:
    return None

def sync_handler(payload: Any, metadata: HandlerMetadata) -> None:
    return None


def test_sync_handlers_are_refused_with_a_clear_error() -> None:
    registry = ListenerRegistry()
    with pytest.raises(RegistrationError, match="not an async function") as info:
        registry.register("calc", sync_handler)  # type: ignore[arg-type]
    assert info.value.listener == "calc"
    assert "calc" not in registry


def test_async_partials_and_callables_are_accepted() -> None:
    class Agent:
        async def __call__(self, payload: Any, metadata: HandlerMetadata) -> None:
            return None

    registry = ListenerRegistry()
    registry.register("p", functools.partial(sink))
    registry.register("o", Agent())
    assert len(registry) == 2


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("", {}, "non-empty"),
        ("system.todo", {}, "reserved"),
        ("*", {}, "reserved"),
        ("a", {"peers": ["*", "b"]}, "cannot be combined"),
        ("a", {"timeout": 0}, "timeout"),
        ("a", {"concurrency": 0}, "concurrency"),
        ("a", {"payload": {"type": "nonsense"}}, "invalid payload JSON Schema"),
        ("a", {"payload": 42}, "pydantic model class or a JSON Schema"),
    ],
)
def test_bad_registrations(name: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(RegistrationError, match=message):
        ListenerRegistry().register(name, sink, **options)


def test_duplicates_and_unknown_peers() -> None:
    registry = ListenerRegistry()
    registry.register("a", sink, peers=["b"])
    with pytest.raises(RegistrationError, match="already registered"):
        registry.register("a", sink)
    with pytest.raises(RegistrationError, match=r"unknown peer.*'b'"):
        registry.check()
    registry.register("b", sink)
    registry.check()


def test_peer_rule_empty_means_no_one_and_star_anyone_but_self() -> None:
    registry = ListenerRegistry()
    none = registry.register("none", sink, peers=[])
    anyone = registry.register("anyone", sink, peers="*")
    selfish = registry.register("selfish", sink, peers=["selfish"])
    assert not none.may_send_to("anyone")
    assert anyone.may_send_to("none") and not anyone.may_send_to("anyone")
    assert selfish.may_send_to("selfish") and not selfish.may_send_to("none")
    assert none.may_send_to("system.todo")


def test_usage_instructions_show_peer_schemas_and_response_semantics() -> None:
    registry = ListenerRegistry()
    agent = registry.register("planner", sink, agent=True, peers=["upper"], description="plans")
    tool = registry.register("upper", echo, payload=Task, description="upper-cases")
    registry.register("hidden", sink, payload=Result)
    text = registry.usage_instructions(agent)
    assert "You are the planner agent." in text
    assert "## upper" in text and '"text"' in text and "upper-cases" in text
    assert "hidden" not in text
    assert "Complete ALL sub-tasks before responding" in text
    assert registry.usage_instructions(tool) == ""
