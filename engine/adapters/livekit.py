"""LiveKit Agents adapter: one LiveKit `Agent` per config agent (instructions, voice, tools and
greeting from its metadata) whose handoff function tools switch the active agent only when
`AsyncEngine.handoff` routes them; the call's engine session feeds the loop guard. Translates
only; decides nothing."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.adapters.common import (
    greeting_for,
    instructions_for,
    missing,
    refusal_message,
    tools_for,
    voice_for,
    with_brief,
)
from engine.config.models import AgentSpec
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from livekit.agents import Agent, RunContext, function_tool
    from livekit.agents.llm import LLM, ChatContext, ChatMessage
    from livekit.agents.tts import TTS
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("livekit-agents", "livekit") from error


_HAS_ID = "id" in inspect.signature(Agent.__init__).parameters  # agent ids in handoff events


@dataclass
class VoiceCall:
    """One call: its engine session and the context values routing rules and carry-over read."""

    session: Session
    values: dict[str, Any] = field(default_factory=dict)


class EngineAgent(Agent):
    """The LiveKit agent playing config agent `name` in a call. Says its greeting when it takes
    over (its `return_greeting` when the caller comes back to it)."""

    def __init__(self, team: VoiceTeam, name: str, call: VoiceCall, *, returning: bool = False,
                 chat_ctx: ChatContext | None = None) -> None:
        spec = team.engine.snapshot.agents[name]
        self.name, self.call, self.greeting = name, call, greeting_for(spec, returning=returning)
        voice, model = voice_for(spec), team.llm(spec) if team.llm else None
        options: dict[str, Any] = {"id": name} if _HAS_ID else {}
        if chat_ctx is not None:
            options["chat_ctx"] = chat_ctx
        if model is not None:
            options["llm"] = model
        if voice is not None and team.tts is not None:
            options["tts"] = team.tts(voice)
        super().__init__(
            instructions=with_brief(team.instructions(spec), call.session.system_vars, name),
            tools=[*tools_for(spec, team.tools, team.engine.snapshot.handoff_map),
                   *team.handoff_tools(name, call)], **options,
        )

    async def on_enter(self) -> None:
        if self.greeting:
            self.session.say(self.greeting)


class VoiceTeam:
    """The LiveKit side of a config set on an engine.

    `VoiceTeam(engine, tts=lambda voice: azure.TTS(voice=voice))` gives every agent its
    `metadata.voice` through your TTS factory; `llm` (a callable of the agent spec) gives an
    agent its own model, else the `AgentSession`'s; `tools` is your toolbox (function tools
    by name): each agent gets the ones its `metadata.tools` names. `team.start(call)` is the
    agent to hand to `AgentSession.start`.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        tts: Callable[[str], TTS[Any]] | None = None,
        llm: Callable[[AgentSpec], LLM[Any] | None] | None = None,
        tools: Mapping[str, Any] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
    ) -> None:
        self.engine, self.tts, self.llm = engine, tts, llm
        self.tools = tools
        self.instructions = instructions

    def call(self, session: Session | None = None, **values: Any) -> VoiceCall:
        """A call on `session` (a new one on the entry agent by default)."""
        return VoiceCall(session or self.engine.session(), values)

    def start(self, call: VoiceCall) -> EngineAgent:
        """The agent holding the call now (its session's active agent)."""
        return EngineAgent(self, call.session.active_agent, call)

    def handoff_tools(self, source: str, call: VoiceCall) -> list[Any]:
        """The function tools for the handoffs `source` may make in this call."""
        return [self._tool(tool, call) for tool in handoff_tools(self.engine.snapshot, source)]

    def _tool(self, tool: HandoffTool, call: VoiceCall) -> Any:
        schema = {"name": tool.name, "description": tool.description,
                  "parameters": tool.parameters}

        async def handoff(raw_arguments: dict[str, Any], context: RunContext[Any]) -> Any:
            session = call.session
            returning = session.get_handoff_target(tool.name) == session.previous_agent
            outcome = await self.engine.handoff(
                _last_user_text(context.session.history), session=session, tool=tool.name,
                context=call.values, tool_args=raw_arguments,
            )
            if outcome.target is None:
                response = outcome.record.response
                return refusal_message(response.reason if response else "refused")
            history = self._shared(outcome.target, context.session.history)
            agent = EngineAgent(self, outcome.target, call, returning=returning, chat_ctx=history)
            return agent  # the new agent greets the caller: no reply from the old one

        return function_tool(handoff, raw_schema=schema)

    def _shared(self, target: str, history: ChatContext) -> ChatContext:
        """The target's `context.share`: `all` takes the call's transcript along; `carry` and
        `none` only the caller's last words (what may travel is in its instructions' brief)."""
        if self.engine.snapshot.agents[target].context.share == "all":
            return history.copy(exclude_function_call=True, exclude_instructions=True)
        return ChatContext(items=[*_user_messages(history)[-1:]])


def _user_messages(history: ChatContext) -> list[ChatMessage]:
    return [item for item in history.items
            if isinstance(item, ChatMessage) and item.role == "user"]


def _last_user_text(history: ChatContext) -> str:
    messages = _user_messages(history)
    return (messages[-1].text_content or "") if messages else ""
