"""LangGraph adapter: handoff tools whose `Command(goto=...)` is the engine's decision, and the two
usual multi-agent graphs built from a config set (swarm: the active agent keeps the caller;
supervisor: workers report back to the entry agent). The loop guard's history lives in the graph
state, so checkpointers keep it. Translates only; decides nothing."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypedDict, cast

from pydantic import BaseModel, ConfigDict

from engine.adapters.common import (
    instructions_for,
    missing,
    not_in_team,
    refusal_message,
    tools_for,
    with_brief,
)
from engine.config.models import AgentSpec
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import HandoffOutcome
from engine.runtime.session import Session
from engine.runtime.tools import HandoffTool, handoff_tools

try:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt import ToolNode, ToolRuntime, tools_condition
    from langgraph.types import Command
except ImportError as error:  # pragma: no cover - exercised without the extra
    raise missing("langgraph", "langgraph") from error


class HandoffState(TypedDict, total=False):
    """Graph state: the conversation, who holds it, the handoffs so far (the loop guard's
    history, `[from, to]` pairs) and the system vars of the last handoff."""

    messages: Annotated[list[AnyMessage], add_messages]
    active_agent: str
    handoff_hops: list[list[str]]
    handoff: dict[str, Any]


class _Injected(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    runtime: ToolRuntime


class _EngineTool(StructuredTool):
    """The model sees the payload schema (`args_schema`); LangGraph's ToolNode reads the input
    schema for what to inject, and finds `runtime` there in every supported version."""

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        return _Injected


class HandoffGraph:
    """LangGraph pieces for a config set on an engine.

    `HandoffGraph(engine, model=chat_model)`: `model` is one chat model for every agent, a
    mapping by agent name, or a callable of the agent spec. `tools` is your toolbox (tools by
    name): each agent gets the ones its `metadata.tools` names. `swarm()` and `supervisor()`
    return uncompiled `StateGraph`s (compile them with your checkpointer); `handoff_tools(agent)`
    gives the tools for graphs of your own. Run the graphs with `ainvoke`/`astream`: handoffs
    await the engine.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        model: BaseChatModel | Mapping[str, BaseChatModel] | Callable[[AgentSpec], BaseChatModel],
        tools: Mapping[str, BaseTool] | None = None,
        instructions: Callable[[AgentSpec], str] = instructions_for,
    ) -> None:
        self.engine = engine
        self._model = model
        self._tools = tools
        self._instructions = instructions
        self.agents = [s.name for s in engine.snapshot.agents.values() if s.enabled]

    # -- tools -----------------------------------------------------------------------------
    def handoff_tools(self, agent: str) -> list[BaseTool]:
        """One tool per handoff `agent` may make (name = trigger, args = payload schema)."""
        return [self._tool(agent, tool) for tool in handoff_tools(self.engine.snapshot, agent)]

    def _tool(self, source: str, tool: HandoffTool) -> BaseTool:
        async def handoff(runtime: ToolRuntime, **payload: Any) -> Command[Any] | str:
            state = cast(HandoffState, runtime.state)
            session = self._session(state, runtime.config)
            values = runtime.context if isinstance(runtime.context, Mapping) else None
            outcome = await self.engine.handoff(
                _last_human(state.get("messages", [])), session=session, tool=tool.name,
                context=values, tool_args=payload,
            )
            if outcome.target is None:
                response = outcome.record.response
                return refusal_message(response.reason if response else "refused")
            if outcome.target not in self.agents:
                raise not_in_team(outcome.target, outcome.decision.config_version)
            done = ToolMessage(content=f"Transferred to {outcome.target}.", name=tool.name,
                               tool_call_id=runtime.tool_call_id, id=str(uuid.uuid4()))
            update = _moved(state, session, outcome)
            update["handoff"]["message_id"] = done.id  # where the target's view starts
            update["messages"] = [*state.get("messages", []), done]
            return Command(goto=outcome.target, graph=Command.PARENT, update=update)

        return _EngineTool(name=tool.name, description=tool.description,
                           args_schema=tool.parameters, coroutine=handoff)

    # -- graphs ----------------------------------------------------------------------------
    def swarm(self) -> StateGraph[Any]:
        """The active agent answers each turn (the entry agent first); a handoff moves it."""
        graph = self._graph()
        graph.add_conditional_edges(START, self._active, self.agents)
        for name in self.agents:
            graph.add_edge(name, END)
        return graph

    def supervisor(self) -> StateGraph[Any]:
        """The entry agent takes every turn and hands work to the others; a worker that is done
        hands back to it through the engine (recorded, policy- and loop-checked)."""
        entry = self.engine.snapshot.config.engine.entry
        graph = self._graph()
        graph.add_node("report_back", self._report_back, destinations=(entry, END))
        graph.add_edge(START, entry)
        graph.add_edge(entry, END)
        for name in self.agents:
            if name != entry:
                graph.add_conditional_edges(name, self._done_with(name), ["report_back", END])
        return graph

    def _done_with(self, worker: str) -> Callable[[HandoffState], str]:
        """After `worker` ran: report back if it kept the conversation; if it handed off, its
        `Command(goto=...)` already moved the graph on."""

        def route(state: HandoffState) -> str:
            return "report_back" if state.get("active_agent") == worker else END

        return route

    def agent(self, name: str) -> Any:
        """Agent `name` as a compiled subgraph: its model with its tools and handoff tools."""
        spec = self.engine.snapshot.agents[name]
        triggers = self.engine.snapshot.handoff_map
        tools = [*tools_for(spec, self._tools, triggers), *self.handoff_tools(name)]
        model = self._model_for(spec).bind_tools(tools)
        base = self._instructions(spec)

        async def think(state: HandoffState) -> dict[str, Any]:
            system = SystemMessage(with_brief(base, state.get("handoff", {}), name))
            reply = await model.ainvoke([system, *self._view(spec, state)])
            return {"messages": [reply]}

        graph = StateGraph(HandoffState)
        graph.add_node("model", think)
        graph.add_node("tools", ToolNode(tools))
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition, ["tools", END])
        graph.add_edge("tools", "model")
        return graph.compile(name=name)

    def _graph(self) -> StateGraph[Any]:
        graph = StateGraph(HandoffState)
        for name in self.agents:
            graph.add_node(name, self.agent(name), destinations=tuple(self.agents))
        return graph

    def _active(self, state: HandoffState) -> str:
        return state.get("active_agent") or self.engine.snapshot.config.engine.entry

    async def _report_back(self, state: HandoffState, config: RunnableConfig) -> Command[Any]:
        session = self._session(state, config)
        entry = self.engine.snapshot.config.engine.entry
        outcome = await self.engine.handoff(
            _last_human(state.get("messages", [])), session=session, target=entry
        )
        if outcome.target is None:
            return Command(goto=END)
        return Command(goto=entry, update=_moved(state, session, outcome))

    # -- translation -----------------------------------------------------------------------
    def _session(self, state: HandoffState, config: RunnableConfig | None) -> Session:
        """The engine session the graph state describes (rebuilt per handoff: the state, not
        this object, is the source of truth, so checkpointed threads resume correctly)."""
        hops = state.get("handoff_hops", [])
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        start = hops[0][0] if hops else self._active(state)
        session = self.engine.session(session_id=str(thread) if thread else None,
                                      active_agent=start, system_vars=state.get("handoff"))
        for _, target in hops:
            session.record_hop(target, returning=target == session.previous_agent, routed=True)
        return session

    def _view(self, spec: AgentSpec, state: HandoffState) -> list[AnyMessage]:
        """The agent's `context.share` as model input: `all` sees the whole conversation;
        `carry` and `none` see the caller's last words before the handoff and what followed it
        (what may travel reaches them in the brief of their instructions)."""
        messages = state.get("messages", [])
        marker = state.get("handoff", {}).get("message_id")
        if spec.context.share == "all" or state.get("active_agent") != spec.name or not marker:
            return messages
        cut = next((i for i, m in enumerate(messages) if m.id == marker), None)
        if cut is None:
            return messages
        before = [m for m in messages[:cut] if isinstance(m, HumanMessage)][-1:]
        return [*before, *messages[cut + 1:]]

    def _model_for(self, spec: AgentSpec) -> BaseChatModel:
        if isinstance(self._model, BaseChatModel):
            return self._model
        if isinstance(self._model, Mapping):
            return self._model[spec.name]
        return self._model(spec)


def _moved(state: HandoffState, session: Session, outcome: HandoffOutcome) -> dict[str, Any]:
    hops = [*state.get("handoff_hops", []), [outcome.decision.request.sender, outcome.target]]
    return {"active_agent": session.active_agent, "handoff_hops": hops,
            "handoff": dict(outcome.system_vars)}


def _last_human(messages: Sequence[AnyMessage]) -> str:
    texts = [m.content for m in messages if isinstance(m, HumanMessage)]
    return texts[-1] if texts and isinstance(texts[-1], str) else ""

