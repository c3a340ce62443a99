"""OpenAI Agents SDK adapter: the SDK's `Agent`s and `Handoff`s built from a config set. Every
handoff the SDK performs was decided, checked and recorded by `AsyncEngine.handoff`; a refused
one never becomes an SDK handoff (its model sees the refusal as the call's tool output). Records
follow the conversation (`Conversation`). Translates only; decides nothing."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from engine.adapters.common import (
    instructions_for,
    missing,
    model_for,
    not_in_team,
    refusal_message,
)
from engine.adapters.lifecycle import Conversation, LifecyclePolicy
from engine.adapters.openai_handoffs import (
    HandoffRefused,
    HandoffRunContext,
    TeamHandoffs,
    payload_of,
)
from engine.adapters.openai_model import ACTIVE, EngineModel, RunBinding
from engine.adapters.openai_stream import StreamedTurn
from engine.adapters.turn_routing import EVERY_TURN, route_turn
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session

try:
    from agents import Agent, Model, MultiProvider, RunConfig, Runner, Tool
    from agents.result import RunResult
    from openai.types.responses import ResponseFunctionToolCall
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error

ModelChoice = str | Model | None
_payload = payload_of  # the name earlier releases had
__all__ = ["AgentTeam", "HandoffRefused", "HandoffRunContext", "StreamedTurn"]


class AgentTeam(TeamHandoffs):
    """The SDK agents of a config set, wired to an engine.

    `AgentTeam(engine, model=...)` builds one `Agent` per enabled config agent: its name, its
    instructions (`instructions(spec)`, by default from the agent's prompt or metadata, followed
    by the engine's handoff brief once it takes over), the tools its `tools` (or
    `metadata.tools`) name from your `tools` (a toolbox: tools by name), and one handoff per
    target its policy allows (tool name = the target's trigger, parameters = its payload
    schema, strict-mode when `strict=True` and the schema allows it). `agents` plugs in your own
    SDK `Agent`s by config name (a copy gets the engine's handoffs, brief and model step; your
    object is left as it is).
    `model`: a model name, an SDK `Model`, or a callable of the agent spec returning either;
    by default its `model` (or `metadata.model.deployment`). `policy`: when records move
    (`LifecyclePolicy`).
    `route_input=True` routes each caller turn through the engine first (rules, keywords,
    examples), so the run starts with the agent the config says should take it.
    Handoffs, payload schemas, tools and share policies follow the serving config: a reload
    takes effect at the next model turn, agents it adds are built then.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        model: ModelChoice | Callable[[AgentSpec], ModelChoice] = None,
        tools: Mapping[str, Tool] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
        agents: Mapping[str, Agent[Any]] | None = None,
        policy: LifecyclePolicy | None = None,
        strict: bool = False,
        route_input: bool = False,
    ) -> None:
        super().__init__(engine, strict=strict)
        self.policy = policy
        self.route_input = route_input
        self._model_choice = model
        self._toolbox = tools
        self._instructions_of = instructions
        self._own = dict(agents or {})
        unknown = sorted(set(self._own) - set(engine.snapshot.agents))
        if unknown:
            raise UsageError(f"agents= names {', '.join(map(repr, unknown))}, which the config "
                             f"set lacks; its agents: {', '.join(engine.snapshot.agents)}")
        self.sync()

    # -- running ---------------------------------------------------------------------------
    def context(self, session: Session | None = None, **values: Any) -> HandoffRunContext:
        """A run context on `session` (a new one on the entry agent by default)."""
        session = session or self.engine.session()
        conversation = Conversation(self.engine, session, self.policy)
        return HandoffRunContext(session, values=values, conversation=conversation)

    def agent_for(self, context: HandoffRunContext) -> Agent[HandoffRunContext]:
        """The SDK agent of the session's active agent: where the next run starts."""
        self.sync()
        return self.agents[context.session.active_agent]

    async def run(self, text: str, context: HandoffRunContext, **options: Any) -> RunResult:
        """One caller turn: `Runner.run` from the session's active agent (options as for it),
        after routing `text` through the engine when `route_input` is on. A run that errors or
        is cancelled fails the record of the agent holding the call, then re-raises."""
        turn = await self._begin(text, context, options)
        token = ACTIVE.set(turn.binding)
        try:
            result = await Runner.run(self.agent_for(context), text, context=context, **options)
        except BaseException as error:
            await self._conversation(context).run_failed(error)
            raise
        finally:
            ACTIVE.reset(token)
        await self._ended(context, turn, result.last_agent.name)
        return result

    async def run_streamed(
        self, text: str, context: HandoffRunContext, **options: Any
    ) -> StreamedTurn:
        """One caller turn, streamed: as `run`, through `Runner.run_streamed` (the engine
        decides each handoff call before the SDK sees it, as in `run`). Iterate the turn's
        `stream_events()` to the end: the records move when the stream does."""
        turn = await self._begin(text, context, options)
        token = ACTIVE.set(turn.binding)  # the SDK's run task starts with a copy of it
        try:
            result = Runner.run_streamed(self.agent_for(context), text, context=context,
                                         **options)
        finally:
            ACTIVE.reset(token)
        return StreamedTurn(result, self._conversation(context),
                            functools.partial(self._ended, context, turn))

    async def route(self, text: str, context: HandoffRunContext) -> HandoffOutcome | None:
        """Route the caller's words through the engine (triggers aside: rules, keywords,
        examples). When they name another agent, the engine hands off to it and the run starts
        there; when nothing names one (no route, or only the config's fallback), the holder
        keeps the caller and nothing is recorded."""
        conversation = self._conversation(context)
        values = conversation.context(context.values)
        outcome = await route_turn(self.engine, context.session, text, values, EVERY_TURN)
        if outcome is None:
            return None
        context.last_outcome = outcome
        await conversation.handed_off(outcome)
        return outcome

    async def end(self, context: HandoffRunContext) -> None:
        """The call is over: the record of the agent holding it completes."""
        await self._conversation(context).end()

    async def _begin(
        self, text: str, context: HandoffRunContext, options: Mapping[str, Any]
    ) -> _Turn:
        """A caller turn starts: `text` routed when `route_input` is on, and what its run's
        model steps are lent."""
        context.text = text
        context.routed.clear()  # decisions the SDK never performed (a run that failed)
        session = options.get("session")
        before = len(await session.get_items()) if session is not None else None
        routed = await self.route(text, context) if self.route_input else None
        if before is not None and routed is not None and routed.target is not None:
            context.floor = (routed.target, before)  # its run sees the session's transcript
        config: RunConfig = options.get("run_config") or RunConfig()
        binding = RunBinding(context, config.model_provider or MultiProvider(),
                             context.floor if session is not None else None)
        return _Turn(binding, context.session.active_agent, before)

    async def _ended(self, context: HandoffRunContext, turn: _Turn, last_agent: str) -> None:
        """A caller turn's run ended normally with `last_agent` holding the call."""
        if turn.before is not None and last_agent != turn.starting:
            context.floor = (last_agent, turn.before)
        await self._conversation(context).run_ended(last_agent)

    # -- the model step (see openai_model.ModelSteps) --------------------------------------
    async def turn(self, agent: str) -> None:
        binding = ACTIVE.get()
        if binding is not None:
            await self._conversation(binding.run).turn(agent)

    def shared_input(self, agent: str, items: Any) -> Any:
        """Items before the holder's takeover are dropped unless it shares `all` (with an SDK
        `Session` the whole transcript comes back on every run)."""
        binding = ACTIVE.get()
        floor = binding.floor if binding is not None else None
        spec = self.engine.snapshot.agents.get(agent)
        if floor is None or floor[0] != agent or spec is None or spec.context.share == "all":
            return items
        return items if isinstance(items, str) else list(items)[floor[1]:]

    def handoff_call(self, output: list[Any]) -> ResponseFunctionToolCall | None:
        triggers = self.engine.snapshot.handoff_map
        return next((item for item in output if isinstance(item, ResponseFunctionToolCall)
                     and item.name in triggers), None)

    async def refusal(
        self, agent: str, call: ResponseFunctionToolCall, offered: Collection[str]
    ) -> str | None:
        binding = ACTIVE.get()
        if binding is None:
            return None  # decided when the SDK performs it
        run: HandoffRunContext = binding.run
        outcome = await self.decide(run, call.name, call.arguments, call_id=call.call_id)
        if outcome.target is None:
            return refusal_message(_reason(outcome))
        if call.name not in offered or outcome.target not in self.agents:
            raise not_in_team(outcome.target, outcome.decision.config_version)
        run.routed[call.name] = outcome
        return None

    async def decide(
        self, run: HandoffRunContext, tool: str, arguments: str, *, call_id: str | None = None
    ) -> HandoffOutcome:
        """The engine's decision on the handoff call `tool(arguments)` (the model's `call_id`
        goes to traces), recorded."""
        payload = self.payload(tool, payload_of(tool, arguments))
        outcome = await self.engine.handoff(
            run.text or str(payload.get("reason", "")), session=run.session, tool=tool,
            context=self._conversation(run).context(run.values), tool_args=payload,
            tool_call_id=call_id,
        )
        run.last_outcome = outcome
        await self._conversation(run).handed_off(outcome)
        return outcome

    # -- building ----------------------------------------------------------------------------
    def build(self, spec: AgentSpec) -> Agent[Any]:
        """The SDK agent of `spec`: a copy of yours when you gave one, else built from the
        spec; either way with the engine's model step and instructions brief."""
        own = self._own.get(spec.name)
        if own is not None:
            return own.clone(model=EngineModel(own.model, spec.name, self),
                             instructions=self.instructions(spec.name, own.instructions))
        return Agent(
            name=spec.name, handoff_description=spec.description or None,
            instructions=self.instructions(spec.name, self._instructions_of(spec)),
            model=EngineModel(_model(spec, self._model_choice), spec.name, self),
        )

    def tools(self, spec: AgentSpec, agent: Agent[Any]) -> list[Any]:
        if spec.name in self._own:
            return list(self._own[spec.name].tools)
        return self.toolbox_tools(spec, self._toolbox)

    def _conversation(self, run: HandoffRunContext) -> Conversation:
        if run.conversation is None:
            run.conversation = Conversation(self.engine, run.session, self.policy)
        return run.conversation


@dataclass(frozen=True)
class _Turn:
    """One caller turn's run: what its model steps are lent, the agent it starts from, and
    the length of its SDK session before it (None without one)."""

    binding: RunBinding
    starting: str
    before: int | None


def _reason(outcome: HandoffOutcome) -> str:
    response = outcome.record.response
    return response.reason if response is not None else "refused"


def _model(spec: AgentSpec, choice: ModelChoice | Callable[[AgentSpec], ModelChoice]) -> Any:
    if callable(choice) and not isinstance(choice, Model):
        return choice(spec)
    if choice is not None:
        return choice
    return model_for(spec)
