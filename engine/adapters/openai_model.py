"""The model step of the OpenAI Agents SDK adapter: each team agent's model is wrapped so the
engine decides a handoff call as soon as the model makes it, before the SDK performs it. A
refused call never becomes an SDK handoff (no `on_handoff`, no handoff span, `last_agent` stays
the sender): the model is asked again with the refusal as that call's tool output, in a
streamed run (`Runner.run_streamed`) as in a plain one. Decides nothing itself; the team
(`ModelSteps`) does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from engine.adapters.common import missing

try:
    from agents import Model, ModelProvider, ModelResponse, MultiProvider
    from agents.exceptions import ModelBehaviorError
    from openai.types.responses import (
        ResponseCompletedEvent,
        ResponseFunctionToolCall,
        ResponseOutputItemAddedEvent,
        ResponseOutputItemDoneEvent,
    )
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error

MAX_REFUSALS = 3
"""Refused handoff calls in a row, within one model turn, before the run fails."""


@dataclass(frozen=True)
class RunBinding:
    """What a running `AgentTeam.run` (or `run_streamed`) lends its agents' models: the
    conversation (the run context), the model provider of the run's `RunConfig`, and where the
    holder's part of the run's SDK session begins (None without a session)."""

    run: Any
    provider: ModelProvider
    floor: tuple[str, int] | None = None


ACTIVE: ContextVar[RunBinding | None] = ContextVar("handoff_openai_run", default=None)
"""Set by `AgentTeam.run` for the duration of one SDK run, and by `run_streamed` as it starts
one (the SDK's run task copies it). A task-local value, so concurrent conversations never see
each other's."""


class ModelSteps(Protocol):
    """What the team does around each model turn of one of its agents."""

    async def turn(self, agent: str) -> None:
        """`agent` takes a model turn (its routed record, if pending, is accepted)."""

    def shared_input(self, agent: str, items: Any) -> Any:
        """The model input `agent` may see under its share policy."""

    def handoff_call(self, output: list[Any]) -> ResponseFunctionToolCall | None:
        """The first call in `output` that names an engine handoff trigger."""

    async def refusal(
        self, agent: str, call: ResponseFunctionToolCall, offered: Collection[str]
    ) -> str | None:
        """Ask the engine about `call`: None when it routed (or is not the engine's to
        decide), else the refusal the model is shown."""


class EngineModel(Model):
    """The model of one team agent: `choice` (a model name, an SDK `Model`, or None for the
    provider's default), with the engine deciding its handoff calls."""

    def __init__(self, choice: str | Model | None, agent: str, steps: ModelSteps) -> None:
        self.choice = choice
        self.agent = agent
        self.steps = steps

    def inner(self) -> Model:
        """The model that answers: `choice` itself, or resolved by the run's provider."""
        if isinstance(self.choice, Model):
            return self.choice
        binding = ACTIVE.get()
        provider = binding.provider if binding is not None else MultiProvider()
        return provider.get_model(self.choice)

    async def get_response(
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any,
    ) -> ModelResponse:
        await self.steps.turn(self.agent)
        items = self.steps.shared_input(self.agent, input)
        offered = {handoff.tool_name for handoff in handoffs}
        model = self.inner()
        for _ in range(MAX_REFUSALS + 1):
            response = await model.get_response(
                system_instructions, items, model_settings, tools, output_schema, handoffs,
                tracing, *args, **kwargs,
            )
            retry = await self._retry_input(items, response.output, offered)
            if retry is None:
                return response
            items = retry
        raise self._refused_too_often(items)

    async def stream_response(
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """The same decision as `get_response`, streamed: events pass through as they come,
        except that from the moment a handoff call opens (or the response completes), the rest
        of the response is held until the engine has decided it. A routed call's events then
        follow; a refused one's never reach the SDK (nor your stream), and the model is asked
        again, streamed."""
        await self.steps.turn(self.agent)
        items = self.steps.shared_input(self.agent, input)
        offered = {handoff.tool_name for handoff in handoffs}
        model = self.inner()
        for _ in range(MAX_REFUSALS + 1):
            held: list[Any] = []
            async for event in model.stream_response(
                system_instructions, items, model_settings, tools, output_schema, handoffs,
                tracing, *args, **kwargs,
            ):
                if held or self._holds_from(event):
                    held.append(event)
                else:
                    yield event
            output = _completed_output(held)
            retry = None if output is None else await self._retry_input(items, output, offered)
            if retry is None:
                for event in held:
                    yield event
                return
            items = retry
        raise self._refused_too_often(items)

    async def _retry_input(
        self, items: Any, output: list[Any], offered: Collection[str]
    ) -> list[Any] | None:
        """When the engine refuses the handoff call in `output`: the input to ask the model
        again with (`items`, the call, and the refusal as its tool output). None when the
        response stands (no handoff call, or one the engine routed)."""
        call = self.steps.handoff_call(output)
        refusal = None if call is None else await self.steps.refusal(self.agent, call, offered)
        if call is None or refusal is None:
            return None
        return [*_as_items(items), call.model_dump(exclude_unset=True),
                {"type": "function_call_output", "call_id": call.call_id, "output": refusal}]

    def _holds_from(self, event: Any) -> bool:
        """Whether the rest of a stream waits for the engine from `event` on: the response's
        completion, or an output item that opens an engine handoff call."""
        return isinstance(event, ResponseCompletedEvent) or (
            isinstance(event, ResponseOutputItemAddedEvent)
            and self.steps.handoff_call([event.item]) is not None)

    def _refused_too_often(self, items: list[Any]) -> ModelBehaviorError:
        return ModelBehaviorError(
            f"agent {self.agent!r}: the model called {MAX_REFUSALS + 1} handoffs in a row that "
            f"the engine refused; the last refusal: {items[-1]['output']}"
        )


def _completed_output(held: list[Any]) -> list[Any] | None:
    """The output of a held stream: its completed response's, or, from backends that leave
    that empty, the items it streamed as done (as the SDK itself reads a stream). None when
    the stream did not complete (the SDK reports that; there is nothing to decide)."""
    completed = [event.response for event in held if isinstance(event, ResponseCompletedEvent)]
    if not completed:
        return None
    done = [event.item for event in held if isinstance(event, ResponseOutputItemDoneEvent)]
    return list(completed[-1].output) or done


def _as_items(items: Any) -> list[Any]:
    return [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
