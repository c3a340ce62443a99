"""`HandoffGraph`: LangGraph graphs built from a config set on an engine. Agent nodes feed the
call's lifecycle (a node entered is a turn; one that errors or is cancelled fails the record),
each agent is rebuilt from the serving snapshot after a reload, and each node declares only the
handoffs policy allows, so drawings (Studio, `draw_mermaid`) show the real topology."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from engine.adapters.common import instructions_for, tools_for, with_brief
from engine.adapters.langgraph.calls import Calls, session_id_of
from engine.adapters.langgraph.router import ROUTER, router_node
from engine.adapters.langgraph.state import (
    HandoffState,
    caller_text,
    moved,
    require_handoff_state,
    view,
)
from engine.adapters.langgraph.tools import bindable, handoff_tool
from engine.adapters.lifecycle import Conversation, LifecyclePolicy
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.tools import handoff_tools

REPORT_BACK = "report_back"
"""The supervisor graph's node that hands a finished worker's call back to the entry agent."""


class HandoffGraph:
    """LangGraph pieces for a config set on an engine.

    `HandoffGraph(engine, model=chat_model)`: `model` is one chat model for every agent, a
    mapping by agent name, or a callable of the agent spec. `tools` is your toolbox (tools by
    name): each agent gets the ones its `metadata.tools` names. `nodes` plugs in your own node
    (any runnable taking and returning the graph state) for an agent by name. `policy` says
    when the call's records move (`engine.adapters.lifecycle`). `strict=True` gives handoff
    tools in strict form where the payload schema allows it, bound as `strict: true` tool
    definitions (which LangChain's OpenAI models send as they are). `swarm()` and `supervisor()`
    return uncompiled `StateGraph`s (compile them with your checkpointer); `add_to(graph)` puts
    the router and agent nodes in a graph of your own. `end(thread_id)` when the call is over.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        model: BaseChatModel | Mapping[str, BaseChatModel] | Callable[[AgentSpec], BaseChatModel],
        tools: Mapping[str, BaseTool] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
        nodes: Mapping[str, Runnable[Any, Any]] | None = None,
        policy: LifecyclePolicy | None = None,
        strict: bool = False,
    ) -> None:
        self.engine = engine
        self.strict = strict
        self.calls = Calls(engine, policy)
        self._model = model
        self._tools = tools
        self._instructions = instructions
        self.agents = [s.name for s in engine.snapshot.agents.values() if s.enabled]
        self._nodes = dict(nodes or {})
        self._built: dict[str, tuple[str, Runnable[Any, Any]]] = {}
        unknown = sorted(set(self._nodes) - set(self.agents))
        if unknown:
            raise UsageError(f"nodes= names {', '.join(map(repr, unknown))}, not enabled agents "
                             f"of the serving config; they are: {', '.join(self.agents)}")

    # -- tools and topology ----------------------------------------------------------------
    def handoff_tools(self, agent: str) -> list[BaseTool]:
        """One tool per handoff `agent` may make (name = trigger, args = payload schema)."""
        return [handoff_tool(self.calls, self._team, agent, tool, strict=self.strict)
                for tool in handoff_tools(self.engine.snapshot, agent)]

    def targets(self, agent: str) -> tuple[str, ...]:
        """The agents policy lets `agent` hand off to: the edges its node declares."""
        allowed = {tool.target for tool in handoff_tools(self.engine.snapshot, agent)}
        return tuple(name for name in self.agents if name in allowed)

    def _team(self) -> list[str]:
        return self.agents

    # -- graphs ----------------------------------------------------------------------------
    def add_to(self, graph: StateGraph[Any], *, route: bool = True) -> StateGraph[Any]:
        """Add a node per agent to `graph` (yours, on `HandoffState` or a subclass: a state
        without its keys is a UsageError now rather than a lost loop guard later) and, with
        `route`, the router node as the graph's start. Edges out of the agents are yours."""
        require_handoff_state(graph)
        if route:
            graph.add_node(ROUTER, router_node(self.calls, self._team),
                           destinations=tuple(self.agents))
            graph.add_edge(START, ROUTER)
        for name in self.agents:
            graph.add_node(name, self.node(name), destinations=self.targets(name))
        return graph

    def swarm(self, *, route: bool = True) -> StateGraph[Any]:
        """The active agent answers each turn (the entry agent first); a handoff moves it. With
        `route`, the engine first routes the caller's words from the active agent."""
        graph = self.add_to(StateGraph(HandoffState), route=route)
        if not route:
            graph.add_conditional_edges(START, self._active, self.agents)
        for name in self.agents:
            graph.add_edge(name, END)
        return graph

    def supervisor(self, *, route: bool = True) -> StateGraph[Any]:
        """The entry agent takes every turn and hands work to the others; a worker that is done
        hands back to it through the engine (recorded, policy- and loop-checked)."""
        entry = self.engine.snapshot.config.engine.entry
        graph = self.add_to(StateGraph(HandoffState), route=route)
        graph.add_node(REPORT_BACK, self._report_back, destinations=(entry, END))
        if not route:
            graph.add_edge(START, entry)
        graph.add_edge(entry, END)
        for name in self.agents:
            if name != entry:
                graph.add_conditional_edges(name, self._done_with(name), [REPORT_BACK, END])
        return graph

    def _done_with(self, worker: str) -> Callable[[HandoffState], str]:
        """After `worker` ran: report back if it kept the conversation; if it handed off, its
        `Command(goto=...)` already moved the graph on."""

        def route(state: HandoffState) -> str:
            return REPORT_BACK if state.get("active_agent") == worker else END

        return route

    def _active(self, state: HandoffState) -> str:
        return state.get("active_agent") or self.engine.snapshot.config.engine.entry

    # -- nodes -----------------------------------------------------------------------------
    def node(self, name: str) -> Callable[..., Any]:
        """Agent `name` as a node that feeds the call's lifecycle: entering it is the agent's
        turn; an error or a cancellation inside fails the record it holds. A handoff or an
        interrupt (LangGraph's `GraphBubbleUp`) passes through: neither is a failure."""

        async def turn(state: Mapping[str, Any], config: RunnableConfig) -> Any:
            session_id = session_id_of(state, config)
            state = {**state, "handoff_session": session_id}
            call = self.calls.get(session_id, state)
            await call.turn(name)
            try:
                result = await self._runnable(name).ainvoke(state, config)
            except GraphBubbleUp:
                raise
            except BaseException as error:
                await call.run_failed(error)
                raise
            await call.run_ended(name)
            return {**result, "handoff_session": session_id} if isinstance(result, dict) else result

        return turn

    def _runnable(self, name: str) -> Runnable[Any, Any]:
        """Your node for `name`, else its subgraph built from the serving snapshot (rebuilt
        after a reload: tools, payload schemas and share policy are the current ones)."""
        if name in self._nodes:
            return self._nodes[name]
        version = self.engine.snapshot.version
        built = self._built.get(name)
        if built is None or built[0] != version:
            built = self._built[name] = (version, self.agent(name))
        return built[1]

    def agent(self, name: str) -> Any:
        """Agent `name` as a compiled subgraph: its model with its tools and handoff tools."""
        spec = self.engine.snapshot.agents[name]
        triggers = self.engine.snapshot.handoff_map
        tools = [*tools_for(spec, self._tools, triggers), *self.handoff_tools(name)]
        model = self._model_for(spec).bind_tools([bindable(tool) for tool in tools])
        base = self._instructions(spec)

        async def think(state: HandoffState) -> dict[str, Any]:
            system = SystemMessage(with_brief(base, state.get("handoff", {}), name))
            reply = await model.ainvoke([system, *view(spec, state)])
            return {"messages": [reply]}

        graph = StateGraph(HandoffState)
        graph.add_node("model", think)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition, ["tools", END])
        graph.add_edge("tools", "model")
        return graph.compile(name=name)

    async def _report_back(self, state: HandoffState, config: RunnableConfig) -> Command[Any]:
        call = self.calls.of(state, config)
        entry = self.engine.snapshot.config.engine.entry
        outcome = await self.engine.handoff(
            caller_text(state.get("messages", [])), session=call.session,
            sender=state.get("active_agent"), target=entry, context=call.context(),
        )
        if outcome.target is None:
            return Command(goto=END)
        await call.handed_off(outcome)
        return Command(goto=entry, update=moved(state, outcome, None))

    # -- calls -----------------------------------------------------------------------------
    def conversation(self, session_id: str) -> Conversation | None:
        """The open conversation of a call (its session id is the thread id), if any."""
        return self.calls.open.get(session_id)

    async def end(self, session_id: str) -> None:
        """The call is over: the record of the agent holding it completes."""
        await self.calls.end(session_id)

    def _model_for(self, spec: AgentSpec) -> BaseChatModel:
        if isinstance(self._model, BaseChatModel):
            return self._model
        if isinstance(self._model, Mapping):
            return self._model[spec.name]
        return self._model(spec)
