"""The SDK side of an `AgentTeam`: its agents kept in step with the serving config (handoffs,
payload schemas, tools, instructions brief), the `Handoff`s the SDK performs once the engine has
routed them, and the share policy as the SDK's handoff input filter. No routing decisions."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.adapters.common import missing, not_in_team, tools_for, with_brief
from engine.adapters.lifecycle import Conversation
from engine.adapters.strict import drop_strict_nulls, strict_parameters
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.guard import parse_json
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from agents import Agent, Handoff, HandoffInputData, RunContextWrapper, Tool
    from agents.exceptions import ModelBehaviorError
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("openai-agents", "openai-agents") from error


@dataclass
class HandoffRunContext:
    """Pass as `Runner.run(..., context=...)`: the conversation's engine session, the context
    values routing rules and carry-over read, and your own `data` for your tools."""

    session: Session
    values: dict[str, Any] = field(default_factory=dict)
    data: Any = None
    text: str = ""
    """The caller's last words (what the handoff record's task says); `AgentTeam.run` (and
    `run_streamed`) sets it."""
    last_outcome: HandoffOutcome | None = None
    """The engine's outcome of the last handoff in this conversation (set by the adapter)."""
    conversation: Conversation | None = None
    """The records of this call, moved from its events (`AgentTeam.context` sets it)."""
    routed: dict[str, HandoffOutcome] = field(default_factory=dict)
    """Handoff calls the engine routed at the model step, by tool name, until the SDK runs them."""
    floor: tuple[str, int] | None = None
    """(holder, n): the holder took over at item n of the run's SDK session; what came before
    is not its to see unless its share policy is `all`."""


class HandoffRefused(ModelBehaviorError):
    """The engine refused a handoff the SDK was already performing: only when the run did not
    go through `AgentTeam.run` or `AgentTeam.run_streamed` (`Runner.run` or
    `Runner.run_streamed` called directly), where the model step could not decide it first.
    The refusal is recorded all the same."""

    def __init__(self, tool: str, reason: str) -> None:
        self.tool = tool
        self.reason = reason
        super().__init__(f"handoff {tool} refused ({reason})")


class TeamHandoffs:
    """The team's SDK agents by config name, brought to the serving config once per version."""

    def __init__(self, engine: AsyncEngine, *, strict: bool = False) -> None:
        self.engine = engine
        self.strict = strict
        self.agents: dict[str, Agent[Any]] = {}
        self._version = ""

    # what the team provides
    def build(self, spec: AgentSpec) -> Agent[Any]:
        raise NotImplementedError

    def tools(self, spec: AgentSpec, agent: Agent[Any]) -> list[Any]:
        raise NotImplementedError

    async def decide(self, run: HandoffRunContext, tool: str, arguments: str) -> HandoffOutcome:
        raise NotImplementedError

    # -- keeping in step -------------------------------------------------------------------
    def sync(self) -> None:
        """Agents the serving config enables are built; every agent's handoffs (targets,
        payload schemas) and tools are rebuilt from it. Once per config version."""
        snapshot = self.engine.snapshot
        if snapshot.version == self._version:
            return
        for spec in snapshot.agents.values():
            if spec.enabled and spec.name not in self.agents:
                self.agents[spec.name] = self.build(spec)
        for name, agent in self.agents.items():
            current = snapshot.agents.get(name)
            if current is not None:
                agent.tools = self.tools(current, agent)
                agent.handoffs = [self._handoff(tool) for tool in handoff_tools(snapshot, name)
                                  if tool.target in self.agents]
        self._version = snapshot.version

    def toolbox_tools(self, spec: AgentSpec, toolbox: Mapping[str, Tool] | None) -> list[Any]:
        return tools_for(spec, toolbox, self.engine.snapshot.handoff_map)

    def instructions(self, name: str, base: Any) -> Any:
        """`base` (text, or the SDK's dynamic instructions), followed by the handoff brief once
        `name` takes over. Evaluated before each model turn, so it also brings the agents to
        the serving config: a reload takes effect at the next turn."""

        async def instructions(ctx: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            self.sync()
            text = base(ctx, agent) if callable(base) else base
            text = (await text if inspect.isawaitable(text) else text) or ""
            run = ctx.context
            if not isinstance(run, HandoffRunContext):
                return str(text)
            return with_brief(str(text), run.session.system_vars, name)

        return instructions

    def payload(self, tool: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The payload as the target's schema wants it: strict mode's `null`s for optional
        properties dropped."""
        target = self.engine.snapshot.agents.get(self.engine.snapshot.handoff_map.get(tool, ""))
        schema = target.accepts.payload_schema if target is not None else None
        if not self.strict or schema is None:
            return payload
        kept: dict[str, Any] = drop_strict_nulls(schema, payload)
        return kept

    # -- the SDK's handoffs ----------------------------------------------------------------
    def _handoff(self, tool: HandoffTool) -> Handoff[Any, Any]:
        strict = strict_parameters(tool.parameters) if self.strict else None

        async def invoke(ctx: RunContextWrapper[Any], arguments: str) -> Agent[Any]:
            run = _run_context(ctx)
            outcome = run.routed.pop(tool.name, None)
            if outcome is None:  # not decided at the model step (see HandoffRefused)
                outcome = await self.decide(run, tool.name, arguments)
                if outcome.target is None:
                    response = outcome.record.response
                    raise HandoffRefused(tool.name, response.reason if response else "refused")
            if outcome.target is None or outcome.target not in self.agents:
                raise not_in_team(str(outcome.target), outcome.decision.config_version)
            return self.agents[outcome.target]

        def enabled(ctx: RunContextWrapper[Any], agent: Any) -> bool:
            run = ctx.context  # removed in this conversation: not offered
            return not (isinstance(run, HandoffRunContext)
                        and tool.name in run.session.removed_handoffs)

        return Handoff(
            tool_name=tool.name, tool_description=tool.description,
            input_json_schema=strict if strict is not None else tool.parameters,
            on_invoke_handoff=invoke, agent_name=tool.target, input_filter=self._share,
            strict_json_schema=strict is not None, is_enabled=enabled,
        )

    def _share(self, data: HandoffInputData) -> HandoffInputData:
        """The target's `context.share` as SDK input: `all` keeps the transcript; `carry` and
        `none` start the target from the caller's last message, and what may travel reaches it
        in its instructions' handoff brief (built by the engine under that policy)."""
        run = data.run_context.context if data.run_context is not None else None
        outcome = run.last_outcome if isinstance(run, HandoffRunContext) else None
        if outcome is None or outcome.target is None:
            return data
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


def payload_of(tool: str, arguments: str) -> dict[str, Any]:
    """The handoff call's arguments as a JSON object (repaired where `parse_json` can)."""
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
