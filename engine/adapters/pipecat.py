"""Pipecat Flows adapter: one Flows node per config agent, built from the serving snapshot each
time it is entered, whose handoff functions return the next node only when `AsyncEngine.handoff`
routes them, plus a pipeline processor that routes the caller's words through the engine before
the model answers. Records move from Pipecat's events (`Conversation`). Translates only."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from engine.adapters.common import (
    greeting_for,
    instructions_for,
    missing,
    refusal_message,
    with_brief,
)
from engine.adapters.common import tools_for as _toolbox_tools
from engine.adapters.lifecycle import Conversation, LifecyclePolicy
from engine.adapters.pipecat_call import FlowCall, llms_after
from engine.adapters.pipecat_flow import default_task
from engine.adapters.turn_routing import TurnRouting, route_turn
from engine.config.models import AgentSpec
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from pipecat.flows import (
        ActionConfig,
        ContextStrategy,
        ContextStrategyConfig,
        FlowManager,
        FlowsFunctionSchema,
        NodeConfig,
    )
    from pipecat.frames.frames import (
        CancelFrame,
        ErrorFrame,
        Frame,
        FunctionCallFromLLM,
        LLMContextFrame,
        LLMFullResponseEndFrame,
        StartFrame,
        TTSSpeakFrame,
    )
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
    from pipecat.services.llm_service import LLMService
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("pipecat-ai", "pipecat") from error

NodeSource = NodeConfig | Callable[[AgentSpec], NodeConfig]
"""Your own node for an agent: a NodeConfig, or a callable of the agent's spec returning one."""

ENTERED = "handoff_engine.entered"
"""The pre-action every node starts with: the agent takes its turn (its record is accepted) and
says its greeting."""


class EngineFlow:
    """The Pipecat Flows side of a config set on an engine.

    `flow = EngineFlow(engine)`; `call = flow.call(customer_id="C-1")`; put
    `flow.router(call)` between the user context aggregator and the LLM; then
    `await flow.start(flow_manager, call)` (e.g. in `on_client_connected`). `nodes` plugs in
    your own NodeConfig per agent (the adapter adds its handoff functions, the agent's toolbox
    tools and greeting); `tools` is your toolbox (Flows functions by name, as `metadata.tools`
    names them); `policy` says when records move; `turns` which routing layers move the caller
    on their own words (by default rules, keywords and examples at the entry agent, rules only
    at a specialist; `TURNS_OFF`: only the models' handoff functions move them).
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        policy: LifecyclePolicy | None = None,
        tools: Mapping[str, Any] | None = None,
        nodes: Mapping[str, NodeSource] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
        turns: TurnRouting | None = None,
    ) -> None:
        self.engine, self.policy, self.tools, self.turns = engine, policy, tools, turns
        self.nodes = dict(nodes or {})
        self.instructions = instructions

    def call(self, session: Session | None = None, **values: Any) -> FlowCall:
        """A call on `session` (a new one on the entry agent by default)."""
        session = session or self.engine.session()
        return FlowCall(session, Conversation(self.engine, session, self.policy), values)

    def router(self, call: FlowCall) -> FrameProcessor:
        """The processor that routes each new caller message through the engine before the LLM
        sees it (place it right after the user context aggregator)."""
        return EngineRouter(self, call)

    async def start(self, flow_manager: FlowManager, call: FlowCall) -> None:
        """Watch the pipeline for the call's end and errors, then enter the active agent's
        node."""
        call.flow_manager = flow_manager
        flow_manager.register_action(ENTERED, _entered(call))
        self._watch(flow_manager.worker, call)
        await flow_manager.initialize(self.node(call.session.active_agent, call))

    # -- nodes -----------------------------------------------------------------------------
    def node(self, name: str, call: FlowCall, *, greet: bool = True,
             caller_words: str = "") -> NodeConfig:
        """Agent `name`'s node on the serving snapshot: its instructions (with the handoff
        brief), your node or a default task, its toolbox tools and the handoffs it may make
        now, and a context strategy from its share policy (`all` keeps the transcript; `carry`
        and `none` start afresh with the caller's last words)."""
        snapshot = self.engine.snapshot
        spec = snapshot.agents[name]
        own = self._own_node(spec)
        call.version = snapshot.version
        role = own.get("role_message") or self.instructions(spec)
        node: NodeConfig = {**own, "name": name,
                            "role_message": with_brief(role, call.session.system_vars, name)}
        node["task_messages"] = list(own.get("task_messages") or default_task(spec))
        node["functions"] = [
            *own.get("functions", []),
            *_toolbox_tools(spec, self.tools, snapshot.handoff_map),
            *(self._handoff_function(tool, call) for tool in handoff_tools(snapshot, name)),
        ]
        greeting = greeting_for(spec, returning=name in call.session.path[:-1]) if greet else None
        entered = cast(ActionConfig, {"type": ENTERED, "agent": name, "greeting": greeting})
        node["pre_actions"] = [entered, *own.get("pre_actions", [])]
        if "context_strategy" not in own and spec.context.share != "all" and caller_words:
            node["context_strategy"] = ContextStrategyConfig(strategy=ContextStrategy.RESET)
            node["task_messages"].append({"role": "user", "content": caller_words})
        return node

    def _own_node(self, spec: AgentSpec) -> NodeConfig:
        source = self.nodes.get(spec.name)
        if source is None:
            return {"task_messages": []}
        return dict(source(spec) if callable(source) else source)  # type: ignore[return-value]

    # -- handoffs --------------------------------------------------------------------------
    def _handoff_function(self, tool: HandoffTool, call: FlowCall) -> FlowsFunctionSchema:
        """The Flows function for one handoff: the engine decides; a refusal stays on the node
        and tells the model why (the `status`/`error` shape Flows gives failed functions)."""

        async def handoff(args: dict[str, Any], flow_manager: FlowManager) -> tuple[Any, Any]:
            text = _last_caller_text(flow_manager.get_current_context())
            outcome = await self.engine.handoff(
                text, session=call.session, tool=tool.name,
                context=call.conversation.context(call.values), tool_args=args,
                tool_call_id=call.tool_call_id(tool.name, args),
            )
            return await self._moved(outcome, call, text)

        parameters = tool.parameters
        return FlowsFunctionSchema(
            name=tool.name, description=tool.description,
            properties=dict(parameters.get("properties") or {}),
            required=list(parameters.get("required") or []), handler=handoff,
        )

    async def _moved(self, outcome: HandoffOutcome, call: FlowCall,
                     text: str) -> tuple[dict[str, Any], NodeConfig | None]:
        if outcome.target is None:
            response = outcome.record.response
            reason = response.reason if response else "refused"
            return {"status": "error", "error": refusal_message(reason),
                    "reason": outcome.reason}, None
        await call.conversation.handed_off(outcome)
        node = self.node(outcome.target, call, caller_words=text)
        return {"status": "handed_off", "to": outcome.target}, node

    async def before_turn(self, messages: Sequence[Any], call: FlowCall) -> bool:
        """A new caller message: route it through the engine (`route_turn`: a turn that stays
        records nothing). When it routes away, or the config was reloaded since the node was
        built, (re)enter the node and return True: the node's own run replaces this one."""
        said = _caller_texts(messages)
        call.heard = min(call.heard, len(said))  # a node that reset the context starts over
        if call.flow_manager is None or len(said) == call.heard:
            return False
        call.heard, text = len(said), said[-1]
        context = call.conversation.context(call.values)
        outcome = await route_turn(self.engine, call.session, text, context, self.turns)
        if outcome is not None:
            _, node = await self._moved(outcome, call, text)
            if node is not None:
                await call.flow_manager.set_node_from_config(node)
                return True
        if call.version != self.engine.snapshot.version:
            node = self.node(call.session.active_agent, call, greet=False)
            await call.flow_manager.set_node_from_config(node)
            return True
        return False

    # -- the call's end --------------------------------------------------------------------
    def _watch(self, worker: PipelineWorker, call: FlowCall) -> None:
        """Pipeline events -> lifecycle: finished (EndFrame/StopFrame) ends the call; cancelled
        (CancelFrame) or an ErrorFrame fails the holder's record; each finished LLM response
        ends a run of the agent holding the call."""
        conversation = call.conversation

        async def finished(_worker: PipelineWorker, frame: Frame) -> None:
            if isinstance(frame, CancelFrame):
                await conversation.run_failed(asyncio.CancelledError(frame.reason or ""))
            else:
                await conversation.end()

        async def errored(_worker: PipelineWorker, frame: ErrorFrame) -> None:
            await conversation.run_failed(frame.exception or RuntimeError(frame.error))

        async def responded(_worker: PipelineWorker, frame: Frame) -> None:
            if isinstance(frame, LLMFullResponseEndFrame):
                await conversation.run_ended(call.session.active_agent)

        worker.add_reached_downstream_filter((LLMFullResponseEndFrame,))
        worker.add_event_handler("on_pipeline_finished", finished)
        worker.add_event_handler("on_pipeline_error", errored)
        worker.add_event_handler("on_frame_reached_downstream", responded)


class EngineRouter(FrameProcessor):
    """Routes each new caller message through the engine before the LLM answers it; passes
    every frame on unless the engine moved the call (the new node's own run follows). When the
    pipeline starts it listens to the LLM service after it for the ids of its function calls,
    so each handoff is recorded and traced with the id of the call that asked for it."""

    def __init__(self, flow: EngineFlow, call: FlowCall) -> None:
        super().__init__(name="EngineRouter")
        self.flow, self.call = flow, call
        self._listening = False

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame) and not self._listening:
            self._listening = True
            for llm in llms_after(self):
                llm.add_event_handler("on_function_calls_started", self._calls_started)
        routed = (isinstance(frame, LLMContextFrame) and direction is FrameDirection.DOWNSTREAM
                  and await self.flow.before_turn(frame.context.get_messages(), self.call))
        if not routed:
            await self.push_frame(frame, direction)


    def _calls_started(self, _llm: LLMService,
                       function_calls: Sequence[FunctionCallFromLLM]) -> None:
        # A plain function: it has run before the LLM service starts the calls' handlers.
        self.call.calls_started(function_calls)


def _entered(call: FlowCall) -> Callable[[dict[str, Any], FlowManager], Awaitable[None]]:
    """The `ENTERED` pre-action's handler (one per flow manager, as Flows registers handlers
    by action type): the action's agent takes its turn, then says its greeting."""

    async def entered(action: dict[str, Any], flow_manager: FlowManager) -> None:
        await call.conversation.turn(action["agent"])
        if action["greeting"]:  # spoken through the pipeline's TTS
            await flow_manager.worker.queue_frame(TTSSpeakFrame(action["greeting"]))

    return entered


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(p.get("text", "") for p in parts if isinstance(p, Mapping)).strip()


def _caller_texts(messages: Sequence[Any]) -> list[str]:
    return [_text_of(m) for m in messages if isinstance(m, Mapping) and m.get("role") == "user"]


def _last_caller_text(messages: Sequence[Any]) -> str:
    said = _caller_texts(messages)
    return said[-1] if said else ""
