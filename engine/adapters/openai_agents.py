"""OpenAI Agents SDK adapter: the SDK's `Agent`s and `Handoff`s built from a config set. Every
handoff the SDK performs is decided, checked and recorded by `AsyncEngine.handoff`; a refusal
keeps the run on the sender, whose model is told why. Translates only; decides nothing."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from engine.adapters.common import (
    instructions_for,
    missing,
    model_for,
    not_in_team,
    refusal_message,
    tools_for,
    with_brief,
)
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.guard import parse_json
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from agents import Agent, Handoff, HandoffInputData, Model, RunContextWrapper, Runner, Tool
    from agents.exceptions import ModelBehaviorError
    from agents.result import RunResult
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error

ModelChoice = str | Model | None


@dataclass
class HandoffRunContext:
    """Pass as `Runner.run(..., context=...)`: the conversation's engine session, the context
    values routing rules and carry-over read, and your own `data` for your tools."""

    session: Session
    values: dict[str, Any] = field(default_factory=dict)
    data: Any = None
    text: str = ""
    """The caller's last words (what the handoff record's task says); `AgentTeam.run` sets it."""
    last_outcome: HandoffOutcome | None = None
    """The engine's outcome of the last handoff in this conversation (set by the adapter)."""


@dataclass
class _Staying(Agent[Any]):
    """The sender again, after the engine refused its handoff: the run stays with it."""

    refusal: str = ""


class _EngineHandoff(Handoff[Any, Any]):
    def get_transfer_message(self, agent: Any) -> str:
        if isinstance(agent, _Staying):
            return json.dumps({"handoff": "refused", "reason": agent.refusal})
        return super().get_transfer_message(agent)


class AgentTeam:
    """The SDK agents of a config set, wired to an engine.

    `AgentTeam(engine, model=...)` builds one `Agent` per enabled config agent: its name, its
    instructions (`instructions(spec)`, by default from the agent's prompt or metadata, followed
    by the engine's handoff brief once it takes over), the tools its `tools` (or
    `metadata.tools`) name from your `tools` (a toolbox: tools by name), and one handoff per
    target its policy allows (tool name = the target's trigger, parameters = its payload
    schema). `model`: a model name, an SDK `Model`, or a callable of the agent spec returning
    either; by default its `model` (or `metadata.model.deployment`). Rebuild the team after a
    reload adds agents.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        model: ModelChoice | Callable[[AgentSpec], ModelChoice] = None,
        tools: Mapping[str, Tool] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
    ) -> None:
        self.engine = engine
        self._offered_cache: dict[str, frozenset[str]] = {}
        self._offered_version = ""
        snapshot = engine.snapshot
        specs = [spec for spec in snapshot.agents.values() if spec.enabled]
        self.agents: dict[str, Agent[HandoffRunContext]] = {
            spec.name: Agent(
                name=spec.name,
                handoff_description=spec.description or None,
                instructions=self._instructions(spec.name, instructions(spec)),
                model=_model(spec, model),
                tools=tools_for(spec, tools, snapshot.handoff_map),
            )
            for spec in specs
        }
        for name, agent in self.agents.items():
            agent.handoffs = [self._handoff(name, tool) for tool in handoff_tools(snapshot, name)
                              if tool.target in self.agents]

    # -- running ---------------------------------------------------------------------------
    def context(self, session: Session | None = None, **values: Any) -> HandoffRunContext:
        """A run context on `session` (a new one on the entry agent by default)."""
        return HandoffRunContext(session or self.engine.session(), values=values)

    def agent_for(self, context: HandoffRunContext) -> Agent[HandoffRunContext]:
        """The SDK agent of the session's active agent: where the next run starts."""
        return self.agents[context.session.active_agent]

    async def run(self, text: str, context: HandoffRunContext, **options: Any) -> RunResult:
        """One caller turn: `Runner.run` from the session's active agent (options as for it)."""
        context.text = text
        return await Runner.run(self.agent_for(context), text, context=context, **options)

    # -- translation -----------------------------------------------------------------------
    def _instructions(self, name: str, base: str) -> Callable[..., str]:
        def instructions(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            run = ctx.context
            if not isinstance(run, HandoffRunContext):
                return base
            return with_brief(base, run.session.system_vars, name)

        return instructions

    def _handoff(self, source: str, tool: HandoffTool) -> Handoff[Any, Any]:
        async def invoke(ctx: RunContextWrapper[Any], arguments: str) -> Agent[Any]:
            run, payload = _run_context(ctx), _payload(tool.name, arguments)
            outcome = await self.engine.handoff(
                run.text or str(payload.get("reason", "")), session=run.session,
                tool=tool.name, context=run.values, tool_args=payload,
            )
            run.last_outcome = outcome
            if outcome.target is None:
                return self._stay(run.session.active_agent, outcome)
            if outcome.target not in self.agents:
                raise not_in_team(outcome.target, outcome.decision.config_version)
            return self.agents[outcome.target]

        def enabled(ctx: RunContextWrapper[Any], agent: Any) -> bool:
            run = ctx.context
            if isinstance(run, HandoffRunContext) and tool.name in run.session.removed_handoffs:
                return False  # removed in this conversation: not offered
            return tool.name in self._offered(source)

        return _EngineHandoff(
            tool_name=tool.name, tool_description=tool.description,
            input_json_schema=tool.parameters, on_invoke_handoff=invoke, agent_name=tool.target,
            input_filter=self._share, strict_json_schema=False, is_enabled=enabled,
        )

    def _offered(self, source: str) -> frozenset[str]:
        """The handoff tools `source` may call on the serving config (once per config version)."""
        snapshot = self.engine.snapshot
        if self._offered_version != snapshot.version:
            self._offered_cache.clear()
            self._offered_version = snapshot.version
        if source not in self._offered_cache:
            names = frozenset(t.name for t in handoff_tools(snapshot, source))
            self._offered_cache[source] = names
        return self._offered_cache[source]

    def _stay(self, name: str, outcome: HandoffOutcome) -> Agent[Any]:
        sender = self.agents[name]
        kept = {f.name: getattr(sender, f.name) for f in fields(sender) if f.init}
        response = outcome.record.response
        reason = response.reason if response is not None else "refused"
        return _Staying(**kept, refusal=refusal_message(reason))

    def _share(self, data: HandoffInputData) -> HandoffInputData:
        """The target's `context.share` as SDK input: `all` keeps the transcript; `carry` and
        `none` start the target from the caller's last message, and what may travel reaches it
        in its instructions' handoff brief (built by the engine under that policy)."""
        run = data.run_context.context if data.run_context is not None else None
        outcome = run.last_outcome if isinstance(run, HandoffRunContext) else None
        if outcome is None or outcome.target is None:
            return data  # a refusal: nothing moves
        target = self.engine.snapshot.agents.get(outcome.target)
        if target is None or target.context.share == "all":
            return data
        return data.clone(input_history=_last_user_message(data.input_history),
                          pre_handoff_items=(), new_items=())


def _run_context(ctx: RunContextWrapper[Any]) -> HandoffRunContext:
    if not isinstance(ctx.context, HandoffRunContext):
        raise UsageError(
            "handoffs need the team's run context: Runner.run(..., context=team.context())"
        )
    return ctx.context


def _payload(tool: str, arguments: str) -> dict[str, Any]:
    try:
        payload = parse_json(arguments) if arguments.strip() else {}
    except ValueError as error:
        raise ModelBehaviorError(f"invalid JSON arguments for handoff {tool}: {error}") from error
    if not isinstance(payload, dict):
        raise ModelBehaviorError(f"handoff {tool} arguments must be a JSON object")
    return payload


def _last_user_message(history: str | tuple[Any, ...]) -> str | tuple[Any, ...]:
    if isinstance(history, str):
        return history
    users = [item for item in history if isinstance(item, dict) and item.get("role") == "user"]
    return tuple(users[-1:])


def _model(spec: AgentSpec, choice: ModelChoice | Callable[[AgentSpec], ModelChoice]) -> Any:
    if callable(choice) and not isinstance(choice, Model):
        return choice(spec)
    if choice is not None:
        return choice
    return model_for(spec)
