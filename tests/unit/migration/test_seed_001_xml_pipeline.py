"""The xml-pipeline handler contract (v2.1), example by example, on `engine.pump`.

Payloads are pydantic models instead of @xmlify dataclasses (no XML, on purpose); handler
bodies are otherwise as the contract writes them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import RegistrationError, UsageError
from engine.pump import (
    HandlerMetadata,
    HandlerResponse,
    ListenerRegistry,
    Pump,
    SystemError,
    TodoRegistered,
    get_todo_registry,
)
from engine.pump.contract import ROUTING_MESSAGE
from tests.patience import HANG_S


class AddPayload(BaseModel):
    a: int
    b: int


class ResultPayload(BaseModel):
    value: int


class Greeting(BaseModel):
    name: str


class GreetingResponse(BaseModel):
    message: str


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, HANG_S))  # type: ignore[arg-type]


def test_handlers_must_be_async_and_are_never_wrapped() -> None:
    def sync_handler(payload: Any, metadata: HandlerMetadata) -> None:
        return None

    with pytest.raises(RegistrationError, match="not an async function"):
        ListenerRegistry().register("sync", sync_handler)  # type: ignore[arg-type]


def test_handler_metadata_fields_and_defaults() -> None:
    metadata = HandlerMetadata(thread_id="t", from_id="console")
    assert (metadata.own_name, metadata.is_self_call, metadata.usage_instructions,
            metadata.todo_nudge) == (None, False, "", "")


def test_forward_respond_and_no_response() -> None:
    seen: list[Any] = []

    async def greeter(payload: Greeting, metadata: HandlerMetadata) -> HandlerResponse:
        seen.append(uuid.UUID(metadata.thread_id))  # an opaque UUID, never the call chain
        return HandlerResponse(payload=GreetingResponse(message="Hello!"), to="shouter")

    async def shouter(payload: GreetingResponse, metadata: HandlerMetadata) -> HandlerResponse:
        seen.append(metadata.from_id)  # only the previous hop
        return HandlerResponse(payload=GreetingResponse(message=payload.message.upper()),
                               to="console_display")

    async def console_display(payload: GreetingResponse, metadata: HandlerMetadata) -> None:
        seen.append(payload.message)
        return None  # End of chain

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("greeter", greeter, payload=Greeting, peers=["shouter"], agent=True)
        registry.register("shouter", shouter, payload=GreetingResponse,
                          peers=["console_display"])
        registry.register("console_display", console_display, payload=GreetingResponse)
        async with Pump(registry) as pump:
            await pump.inject("greeter", Greeting(name="Dan"), sender="console")
            await pump.join()

    run(main())
    assert seen[1:] == ["greeter", "HELLO!"]


def test_respond_prunes_the_chain_back_to_the_caller() -> None:
    async def add_handler(payload: AddPayload, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse.respond(payload=ResultPayload(value=payload.a + payload.b))

    async def main() -> Any:
        registry = ListenerRegistry()
        registry.register("calculator.add", add_handler, payload=AddPayload)
        async with Pump(registry) as pump:
            return await pump.request("calculator.add", AddPayload(a=40, b=2))

    assert run(main()) == ResultPayload(value=42)


def test_pure_tool_returns_to_whoever_called_by_from_id() -> None:
    """The contract's "pure tool" replies with `to=metadata.from_id` and declares no peers:
    answering whoever called needs none, so it is delivered as `.respond()` would be."""
    errors: list[SystemError] = []

    async def add_handler(payload: Any, metadata: HandlerMetadata) -> HandlerResponse | None:
        if isinstance(payload, SystemError):
            errors.append(payload)
            return None
        result = payload.a + payload.b
        return HandlerResponse(
            payload=ResultPayload(value=result),
            to=metadata.from_id,  # Return to whoever called
        )

    async def agent(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
        if isinstance(payload, Greeting):
            return HandlerResponse(AddPayload(a=2, b=3), to="calculator.add")
        return HandlerResponse.respond(payload)

    async def main() -> tuple[Any, Any]:
        registry = ListenerRegistry()
        registry.register("calculator.add", add_handler, payload=[AddPayload, SystemError],
                          peers=[])
        registry.register("agent", agent, payload=[Greeting, ResultPayload],
                          peers=["calculator.add"])
        async with Pump(registry) as pump:
            direct = await pump.request("calculator.add", AddPayload(a=1, b=2))
            return direct, await pump.request("agent", Greeting(name="x"))

    assert run(main()) == (ResultPayload(value=3), ResultPayload(value=5))
    assert errors == []


def test_undeclared_peer_gets_the_generic_error_and_may_retry() -> None:
    replies: list[SystemError] = []
    answers: list[str] = []

    async def greeter(payload: Any, metadata: HandlerMetadata) -> HandlerResponse | None:
        if isinstance(payload, SystemError):
            replies.append(payload)
            return HandlerResponse(payload=GreetingResponse(message="retry"), to="shouter")
        if isinstance(payload, GreetingResponse):
            answers.append(payload.message)  # the retry went through: the thread stayed alive
            return None
        return HandlerResponse(payload=GreetingResponse(message="hi"), to="secret_admin")

    async def shouter(payload: GreetingResponse, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse.respond(payload=payload)

    async def main() -> Any:
        registry = ListenerRegistry()
        registry.register("greeter", greeter, payload=[Greeting, SystemError, GreetingResponse],
                          peers=["shouter", "logger"], agent=True)
        registry.register("shouter", shouter, payload=GreetingResponse)
        registry.register("logger", shouter, payload=GreetingResponse)
        registry.register("secret_admin", shouter, payload=GreetingResponse)
        async with Pump(registry) as pump:
            thread = await pump.inject("greeter", Greeting(name="x"), sender="console")
            await pump.join()
            return thread

    run(main())
    assert replies == [SystemError(code="routing", message=ROUTING_MESSAGE, retry_allowed=True)]
    assert "secret_admin" not in replies[0].message
    assert answers == ["retry"]


def test_todo_nudge_handler_example_closes_raised_watchers() -> None:
    closed: list[str] = []
    nudges: list[str] = []

    async def agent_handler(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
        # Check for completed todos
        if metadata.todo_nudge:
            nudges.append(metadata.todo_nudge)
            todo_registry = get_todo_registry()
            raised = todo_registry.get_raised_for(metadata.thread_id, metadata.own_name or "")
            for watcher in raised:
                todo_registry.close(watcher.watcher_id)
                closed.append(watcher.id)
        if isinstance(payload, Greeting):
            return HandlerResponse({"wait_for": "ResultPayload", "from_listener": "calculator"},
                                   to="system.todo")
        if isinstance(payload, TodoRegistered):
            return HandlerResponse(AddPayload(a=1, b=2), to="calculator")
        return HandlerResponse.respond(payload)

    async def calculator(payload: AddPayload, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse.respond(ResultPayload(value=payload.a + payload.b))

    async def main() -> Any:
        registry = ListenerRegistry()
        registry.register("agent", agent_handler, payload=[Greeting, ResultPayload],
                          peers=["calculator"], agent=True)
        registry.register("calculator", calculator, payload=AddPayload)
        async with Pump(registry) as pump:
            return await pump.request("agent", Greeting(name="x"))

    assert run(main()) == ResultPayload(value=3)
    assert len(closed) == 1 and closed[0] in nudges[0]
    assert nudges[0].startswith(
        "SYSTEM NOTE: The following todos appear complete and should be closed:\n"
        f"- watcher_id: {closed[0]} (registered for: ResultPayload")
    assert "Call todo_registry.close(watcher_id) to acknowledge" in nudges[0]


def test_get_todo_registry_works_in_start_up_and_admin_code() -> None:
    todo_registry = get_todo_registry()  # start-up: before any pump exists
    seen: dict[str, Any] = {}
    registered, inspected = asyncio.Event(), asyncio.Event()

    async def agent_handler(payload: Any, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, Greeting):
            return HandlerResponse({"wait_for": "ResultPayload"}, to="system.todo")
        assert isinstance(payload, TodoRegistered)
        seen["thread"], seen["watcher"] = metadata.thread_id, payload.id
        registered.set()
        await inspected.wait()  # the conversation stays open while admin code looks
        return None

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("agent", agent_handler, payload=[Greeting], agent=True)
        async with Pump(registry) as pump:
            await pump.inject("agent", Greeting(name="x"))
            await asyncio.wait_for(registered.wait(), HANG_S)
            admin = get_todo_registry()  # admin code: outside any handler
            [pending] = admin.get_pending_for(seen["thread"], "agent")
            assert pending.watcher_id == seen["watcher"] and len(todo_registry) == 1
            assert todo_registry.get(seen["watcher"]) == pending == pump.todos.get(pending.id)
            assert todo_registry.close(pending.watcher_id) and len(pump.todos) == 0
            inspected.set()
            await pump.join()

    run(main())
    assert len(todo_registry) == 0 and get_todo_registry() is todo_registry
    assert todo_registry.get_raised_for("no-such-thread", "agent") == []
    with pytest.raises(UsageError, match="no running pump has thread"):
        todo_registry.register("no-such-thread", "agent", "ResultPayload")


def test_llm_agent_gets_peer_schemas_and_the_response_semantics() -> None:
    prompts: list[str] = []

    async def research_handler(payload: Greeting, metadata: HandlerMetadata) -> None:
        prompts.append(metadata.usage_instructions + "\n\nYou are a research agent.")
        assert metadata.own_name == "researcher"
        return None

    async def summarizer(payload: GreetingResponse, metadata: HandlerMetadata) -> None:
        return None

    async def main() -> None:
        registry = ListenerRegistry()
        registry.register("researcher", research_handler, payload=Greeting,
                          peers=["summarizer"], agent=True)
        registry.register("summarizer", summarizer, payload=GreetingResponse)
        async with Pump(registry) as pump:
            await pump.request("researcher", Greeting(name="q"))

    run(main())
    assert "summarizer" in prompts[0] and "message" in prompts[0]
    assert "Complete ALL sub-tasks before responding" in prompts[0]


def test_legacy_bytes_returns_fail_once_clearly_instead_of_bouncing() -> None:
    """Deliberate: no XML. A legacy handler returning bytes (it would answer a SystemError
    with bytes again) fails once: its caller gets one `contract` error saying what to return,
    and the handler is not called again on that thread."""
    calls: list[str] = []

    async def old_handler(payload: Any, metadata: HandlerMetadata) -> Any:
        calls.append(type(payload).__name__)
        return b"<result>...</result>"

    async def main() -> Any:
        registry = ListenerRegistry()
        registry.register("old", old_handler, payload=[Greeting, SystemError])
        async with Pump(registry) as pump:
            reply = await pump.request("old", Greeting(name="x"))
            return reply, pump.stats().errors

    reply, errors = run(main())
    assert calls == ["Greeting"] and errors == {"contract": 1}
    assert isinstance(reply, SystemError) and reply.code == "contract"
    assert not reply.retry_allowed and "'old' returned bytes" in reply.message
    assert "HandlerResponse(payload, to=...)" in reply.message
