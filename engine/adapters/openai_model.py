"""The model step of the OpenAI Agents SDK adapter: each team agent's model is wrapped so the
engine decides a handoff call as soon as the model makes it, before the SDK performs it. A
refused call never becomes an SDK handoff (no `on_handoff`, no handoff span, `last_agent` stays
the sender): the model is asked again with the refusal as that call's tool output. Decides
nothing itself; the team (`ModelSteps`) does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from engine.adapters.common import missing

try:
    from agents import Model, ModelProvider, ModelResponse, MultiProvider
    from agents.exceptions import ModelBehaviorError
    from openai.types.responses import ResponseFunctionToolCall
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error

MAX_REFUSALS = 3
"""Refused handoff calls in a row, within one model turn, before the run fails."""


@dataclass(frozen=True)
class RunBinding:
    """What the running `AgentTeam.run` lends its agents' models: the conversation (the run
    context), the model provider of the run's `RunConfig`, and where the holder's part of the
    run's SDK session begins (None without a session)."""

    run: Any
    provider: ModelProvider
    floor: tuple[str, int] | None = None


ACTIVE: ContextVar[RunBinding | None] = ContextVar("handoff_openai_run", default=None)
"""Set by `AgentTeam.run` for the duration of one SDK run (a task-local value, so concurrent
conversations never see each other's)."""


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
            call = self.steps.handoff_call(response.output)
            refusal = None if call is None else await self.steps.refusal(self.agent, call,
                                                                           offered)
            if call is None or refusal is None:
                return response
            items = [*_as_items(items), call.model_dump(exclude_unset=True),
                     {"type": "function_call_output", "call_id": call.call_id,
                      "output": refusal}]
        raise ModelBehaviorError(
            f"agent {self.agent!r}: the model called {MAX_REFUSALS + 1} handoffs in a row that "
            f"the engine refused; the last refusal: {refusal}"
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Streamed turns pass through: their handoff calls are decided when the SDK performs
        them (a refusal then ends the run with `HandoffRefused`)."""
        return self.inner().stream_response(*args, **kwargs)


def _as_items(items: Any) -> list[Any]:
    return [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
