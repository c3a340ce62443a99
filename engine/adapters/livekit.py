"""LiveKit Agents adapter: one LiveKit `Agent` per config agent (instructions, voice, tools and
greeting from its metadata; your own `EngineAgent` subclass where you register one). The engine
decides every switch: a handoff function tool switches the active agent only when
`AsyncEngine.handoff` routes it (a refusal is a `ToolError` with the typed reason), and the
user-turn hook routes the caller's words through the engine's rules, keywords and examples
before the model answers. Tools are rebuilt from the serving config at each user turn; the
call's records move with LiveKit's events (`engine.adapters.livekit_call`). Translates only;
decides nothing."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from engine.adapters.common import (
    greeting_for,
    instructions_for,
    missing,
    refusal_message,
    tools_for,
    voice_for,
    with_brief,
)
from engine.adapters.lifecycle import LifecyclePolicy
from engine.adapters.livekit_call import VoiceCall, last_user_text, let_go, shared_history
from engine.adapters.strict import drop_strict_nulls, function_definition
from engine.adapters.turn_routing import TurnRouting, route_turn
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from livekit.agents import Agent, AgentSession, RunContext, function_tool
    from livekit.agents.llm import (
        LLM,
        ChatContext,
        ChatMessage,
        StopResponse,
        ToolError,
    )
    from livekit.agents.tts import TTS
    from livekit.agents.voice.room_io import TextInputEvent
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("livekit-agents", "livekit") from error

__all__ = ["AgentFactory", "EngineAgent", "VoiceCall", "VoiceTeam"]

log = logging.getLogger("engine.adapters.livekit")
_HAS_ID = "id" in inspect.signature(Agent.__init__).parameters  # agent ids in handoff events


class EngineAgent(Agent):
    """The LiveKit agent playing config agent `name` in a call: says its greeting when it takes
    over (its `return_greeting` when the caller comes back to it), then answers the caller's
    words when the engine routed them to it.

    Subclass it for behaviour of your own (function tools as methods, `on_enter`, nodes) and
    register the class per agent name: `VoiceTeam(engine, agents={"fraud_agent": FraudDesk})`.
    Call `super()` in the hooks you override: `on_enter` reports the turn that accepts the
    agent's handoff record, `on_user_turn_completed` routes the caller's words. Extra keyword
    arguments go to LiveKit's `Agent` (`stt=`, `vad=`, `allow_interruptions=`...).
    """

    def __init__(self, team: VoiceTeam, name: str, call: VoiceCall, *, returning: bool = False,
                 chat_ctx: ChatContext | None = None, answer: str | None = None,
                 **options: Any) -> None:
        spec = team.engine.snapshot.agents[name]
        self.team, self.name, self.call = team, name, call
        self.greeting = greeting_for(spec, returning=returning)
        self.answer = answer
        self._entered = asyncio.Event()  # set once it greeted and answered
        options = {**team.agent_options(spec), **options}
        if _HAS_ID:
            options.setdefault("id", name)
        if chat_ctx is not None:
            options["chat_ctx"] = chat_ctx
        self.built_from = team.engine.snapshot  # the config its instructions and tools are from
        given = team.tools_of(name, call)
        super().__init__(instructions=team.instructions_of(name, call), tools=given, **options)
        self.own_tools = self.tools[len(given):]  # this class's function tool methods

    async def on_enter(self) -> None:
        """Taking over the call: the turn that accepts this agent's handoff record; then the
        greeting, and the answer to the words the engine routed here."""
        self.call.watch(self.session)
        await self.call.turn(self.name)
        speech = []
        if self.greeting:
            speech.append(self.session.say(self.greeting))
        if self.answer is not None:
            speech.append(self.session.generate_reply(user_input=self.answer))
        if speech:  # played in order: the last one done means all are
            speech[-1].add_done_callback(lambda _: self._entered.set())
        else:
            self._entered.set()

    async def entered(self) -> None:
        """Wait until this agent has taken the call over: greeted, and answered the routed
        words (`team.start(call)`, then `await agent.entered()` before the caller speaks)."""
        await self._entered.wait()
        await let_go(self.session)

    async def on_user_turn_completed(self, turn_ctx: ChatContext,
                                     new_message: ChatMessage) -> None:
        """Before the model answers the caller: tools from the serving config (a reload takes
        effect now), then the caller's words through the engine. When the engine routes them
        to another agent, that agent takes the call and answers (`StopResponse`: no reply
        from this one); when it keeps the caller here, nothing is recorded."""
        await self.refresh()
        successor = await self.team.route_turn(self, turn_ctx, new_message)
        if successor is not None:
            self.session.update_agent(successor)
            raise StopResponse()

    async def refresh(self) -> None:
        """Instructions and tools (handoff tools with their payload schemas, toolbox tools,
        this class's own function tools) from the config serving now, when it changed since
        they were built. An agent a reload removed, or whose `metadata.tools` now names a tool
        the toolbox lacks, keeps what it has (logged): the engine refuses its stale handoffs."""
        snapshot = self.team.engine.snapshot
        if snapshot is self.built_from:
            return
        try:
            instructions = self.team.instructions_of(self.name, self.call)
            tools = self.team.tools_of(self.name, self.call)
        except (KeyError, UsageError) as error:
            log.warning("agent %r keeps its tools from the previous config: %s", self.name, error)
            return
        await self.update_instructions(instructions)
        await self.update_tools([*tools, *self.own_tools])
        self.built_from = snapshot


class AgentFactory(Protocol):
    """What `VoiceTeam(agents=...)` takes per agent name: an `EngineAgent` subclass, or any
    callable with its signature (e.g. `functools.partial(FraudDesk, crm=crm)`)."""

    def __call__(self, team: VoiceTeam, name: str, call: VoiceCall, *, returning: bool = False,
                 chat_ctx: ChatContext | None = None,
                 answer: str | None = None) -> EngineAgent: ...


class VoiceTeam:
    """The LiveKit side of a config set on an engine.

    `VoiceTeam(engine, tts=lambda voice: azure.TTS(voice=voice))` gives every agent its
    `metadata.voice` through your TTS factory; `llm` (a callable of the agent spec) gives an
    agent its own model, else the `AgentSession`'s; `tools` is your toolbox (function tools
    by name): each agent gets the ones its `metadata.tools` names; `agents` maps agent names to
    your own `EngineAgent` subclasses; `policy` says when records move (default: accepted on
    the target's first turn, completed when it hands on or the call ends); `turn_routing`
    which routing layers move the caller on their own words; `strict=True` strict-mode handoff
    tools (`engine.adapters.strict`) where the payload schema allows it. `team.start(call)`
    is the agent to hand to `AgentSession.start`; `team.text_input` is the room's text input
    callback (typed turns go through the same user-turn hook as spoken ones).
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        tts: Callable[[str], TTS[Any]] | None = None,
        llm: Callable[[AgentSpec], LLM[Any] | None] | None = None,
        tools: Mapping[str, Any] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
        agents: Mapping[str, AgentFactory] | None = None,
        policy: LifecyclePolicy | None = None,
        turn_routing: TurnRouting | None = None,
        strict: bool = False,
    ) -> None:
        self.engine, self.tts, self.llm, self.strict = engine, tts, llm, strict
        self.tools = tools
        self.instructions = instructions
        self.agents = dict(agents or {})
        self.policy = policy
        self.turn_routing = turn_routing or TurnRouting()
        unknown = sorted(set(self.agents) - set(engine.snapshot.agents))
        if unknown:
            raise UsageError(f"agents= names {', '.join(map(repr, unknown))}, not agents of "
                             f"the config set; it has: {', '.join(engine.snapshot.agents)}")

    def call(self, session: Session | None = None, **values: Any) -> VoiceCall:
        """A call on `session` (a new one on the entry agent by default)."""
        return VoiceCall(self.engine, session or self.engine.session(), values,
                         policy=self.policy)

    def start(self, call: VoiceCall) -> EngineAgent:
        """The agent holding the call now (its session's active agent)."""
        return self.agent(call.session.active_agent, call)

    def agent(self, name: str, call: VoiceCall, **options: Any) -> EngineAgent:
        """The LiveKit agent for config agent `name`: your registered class, else EngineAgent."""
        built = self.agents.get(name, EngineAgent)(self, name, call, **options)
        if not isinstance(built, EngineAgent):
            raise UsageError(f"agents[{name!r}] built a {type(built).__name__}, not an "
                             "EngineAgent: subclass EngineAgent to keep the engine's wiring")
        return built

    # -- what an agent is given, from the serving config ------------------------------------
    def agent_options(self, spec: AgentSpec) -> dict[str, Any]:
        """LiveKit `Agent` options from the spec: its own model and its voice."""
        options: dict[str, Any] = {}
        model, voice = self.llm(spec) if self.llm else None, voice_for(spec)
        if model is not None:
            options["llm"] = model
        if voice is not None and self.tts is not None:
            options["tts"] = self.tts(voice)
        return options

    def instructions_of(self, name: str, call: VoiceCall) -> str:
        spec = self.engine.snapshot.agents[name]
        return with_brief(self.instructions(spec), call.session.system_vars, name)

    def tools_of(self, name: str, call: VoiceCall) -> list[Any]:
        """The toolbox tools `metadata.tools` names, then one handoff tool per allowed target."""
        snapshot = self.engine.snapshot
        return [*tools_for(snapshot.agents[name], self.tools, snapshot.handoff_map),
                *self.handoff_tools(name, call)]

    def handoff_tools(self, source: str, call: VoiceCall) -> list[Any]:
        """The function tools for the handoffs `source` may make in this call."""
        return [self._tool(tool, call) for tool in handoff_tools(self.engine.snapshot, source)]

    # -- the engine deciding ------------------------------------------------------------------
    def _tool(self, tool: HandoffTool, call: VoiceCall) -> Any:
        schema = function_definition(tool, strict=self.strict)  # raw: LiveKit sends it as is
        strict = bool(schema["strict"])

        async def handoff(raw_arguments: dict[str, Any], context: RunContext[Any]) -> Any:
            session = call.session
            returning = session.get_handoff_target(tool.name) == session.previous_agent
            if strict:  # the model's nulls for optional properties
                raw_arguments = drop_strict_nulls(tool.parameters, raw_arguments)
            outcome = await self.engine.handoff(
                last_user_text(context.session.history), session=session, tool=tool.name,
                context=call.context(), tool_args=raw_arguments,
                tool_call_id=context.function_call.call_id,  # the model's call, on the span
            )
            await call.handed_off(outcome)
            if outcome.target is None:
                response = outcome.record.response
                raise ToolError(refusal_message(response.reason if response else "refused"))
            share = self.engine.snapshot.agents[outcome.target].context.share
            history = shared_history(share, context.session.history)
            return self.agent(outcome.target, call, returning=returning, chat_ctx=history)

        return function_tool(handoff, raw_schema=schema)

    async def route_turn(self, agent: EngineAgent, turn_ctx: ChatContext,
                         message: ChatMessage) -> EngineAgent | None:
        """The agent the engine moves the caller to on their words (`turn_routing` says which
        layers may), or None when `agent` keeps them; a turn that stays records nothing."""
        words, call = message.text_content or "", agent.call
        if call.session.active_agent != agent.name:
            return None
        returning_to = call.session.previous_agent
        outcome = await route_turn(self.engine, call.session, words, call.context(),
                                   self.turn_routing)
        if outcome is None:
            return None
        await call.handed_off(outcome)
        if outcome.target is None:  # refused after all (the config changed in between)
            return None
        share = self.engine.snapshot.agents[outcome.target].context.share
        history = shared_history(share, turn_ctx, last=False)
        return self.agent(outcome.target, call, returning=outcome.target == returning_to,
                          chat_ctx=history, answer=words)

    async def text_input(self, session: AgentSession[Any], event: TextInputEvent) -> None:
        """LiveKit's `text_input_cb` for a room's typed turns: `caller_says(session, event.text)`.
        `RoomOptions(text_input=TextInputOptions(text_input_cb=team.text_input))`."""
        await self.caller_says(session, event.text)

    async def caller_says(self, session: AgentSession[Any], words: str) -> None:
        """A typed turn: the user-turn hook runs before the reply, as LiveKit runs it for spoken
        turns (its default text callback and `session.run` skip it), so typed words are routed
        too. Returns once the reply is done, from the agent the engine chose when it moved the
        call (greeted and answered)."""
        agent = session.current_agent
        try:
            await agent.on_user_turn_completed(agent.chat_ctx.copy(),
                                               ChatMessage(role="user", content=[words]))
        except StopResponse:
            pass  # the agent the engine chose answers from its on_enter
        else:
            session.interrupt()  # barge-in, as LiveKit's text callback does (not awaited: an
            await session.generate_reply(user_input=words)  # idle 1.2 session never resolves it)
            await let_go(session)
        successor = session.current_agent  # a handoff in this turn: wait for its greeting
        if successor is not agent and isinstance(successor, EngineAgent):
            await successor.entered()
