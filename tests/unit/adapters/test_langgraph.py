"""LangGraph adapter, run by real LangGraph graphs with langchain-core's fake chat model: the
handoff tools' `Command(goto=...)` is the engine's decision, in supervisor graphs and graphs of
the user's own; drawings show only the handoffs policy allows. (A whole call through a swarm
graph, with its lifecycle and spans: test_langgraph_calls.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, ONE_HOP, framework

framework("langgraph", "langgraph")

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode, tools_condition  # noqa: E402

from engine.adapters.langgraph import HandoffGraph  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.langgraph import ScriptedChatModel  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402

RESEARCH = BANKING.parent / "research"
THREAD = {"configurable": {"thread_id": "t-1"}}


def run(body: Callable[[AsyncEngine], Any], config: Path = BANKING) -> Any:
    async def main() -> Any:
        async with AsyncEngine(Engine(config)) as engine:
            return await body(engine), await engine.query()

    return asyncio.run(main())


@pytest.mark.slow
def test_handoff_tools_show_the_model_the_targets_payload_schema() -> None:
    async def body(engine: AsyncEngine) -> Any:
        return HandoffGraph(engine, model=ScriptedChatModel.of([])).handoff_tools("concierge")

    tools, _ = run(body)
    fraud = next(tool for tool in tools if tool.name == "handoff_fraud_agent")
    schema = fraud.tool_call_schema
    assert schema["required"] == ["reason"] and "fraud team" in schema["description"]
    assert "runtime" not in fraud.args  # injected by LangGraph, never shown to the model


def test_supervisor_workers_report_back_through_the_engine() -> None:
    model = ScriptedChatModel.of([
        call("handoff_analyst", question="How big is the EU heat-pump market?"),
        say("Findings: about 3 million units a year."),                # analyst, then back
        say("Plan: the writer drafts a brief next."),                    # coordinator ends
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        graph = team.supervisor().compile()
        state = await graph.ainvoke({"messages": [HumanMessage("Size the heat-pump market")]})
        await team.end(state["handoff_session"])
        return state

    state, records = run(body, RESEARCH)
    assert state["handoff_hops"] == [["coordinator", "analyst"], ["analyst", "coordinator"]]
    assert state["active_agent"] == "coordinator"
    assert [(r.request.from_agent, r.request.to_agent, r.status) for r in records] == [
        ("coordinator", "analyst", HandoffStatus.completed),
        ("analyst", "coordinator", HandoffStatus.completed),
    ]
    assert records[0].result == {"handed_on_to": "coordinator"}
    assert state["messages"][-1].content == "Plan: the writer drafts a brief next."


def test_supervisor_ends_when_the_engine_refuses_the_report_back(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    model = ScriptedChatModel.of([call("to_b", reason="do it"), say("Done.")])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).supervisor().compile()
        return await graph.ainvoke({"messages": [HumanMessage("go")]})

    state, records = run(body, folder)
    assert state["active_agent"] == "b" and state["messages"][-1].content == "Done."
    assert [r.status for r in records] == [HandoffStatus.in_progress, HandoffStatus.rejected]
    assert records[1].response.reason.startswith("loop")


@pytest.mark.parametrize("words", ["I want to file a claim", "Can you help me?"],
                         ids=["router", "tool"])
def test_a_handoff_to_an_agent_without_a_node_is_a_clear_error_and_rejected(words: str) -> None:
    model = ScriptedChatModel.of([call("handoff_claims", reason="a claim")])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        team.agents.remove("claims")  # as if a reload had enabled claims after the build
        with pytest.raises(UsageError, match="rebuild them after a reload"):
            await team.swarm().compile().ainvoke({"messages": [HumanMessage(words)]})

    _, records = run(body)
    assert [(r.request.to_agent, r.status) for r in records] == [
        ("claims", HandoffStatus.rejected)]
    assert "rebuild them after a reload" in records[0].response.reason


def test_supervisor_worker_handing_to_another_worker_does_not_also_report_back() -> None:
    model = ScriptedChatModel.of([
        call("handoff_analyst", question="EU heat-pump sales?"),      # coordinator
        call("handoff_writer", reason="write up the findings"),        # analyst -> writer
        say("Brief: a 3M-unit market."),                               # writer, then back
        say("Done."),                                                  # coordinator ends
    ])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).supervisor().compile()
        return await graph.ainvoke({"messages": [HumanMessage("Size the market")]})

    state, records = run(body, RESEARCH)
    hops = [["coordinator", "analyst"], ["analyst", "writer"], ["writer", "coordinator"]]
    assert state["handoff_hops"] == hops
    assert [[r.request.from_agent, r.request.to_agent] for r in records] == hops
    assert state["messages"][-1].content == "Done."


def drawn_handoffs(graph: Any, agents: list[str]) -> set[tuple[str, str]]:
    """The agent-to-agent edges of the graph's Mermaid drawing (what Studio shows)."""
    edges = set()
    for line in graph.get_graph().draw_mermaid().splitlines():
        parts = line.strip().rstrip(";").split()
        if len(parts) == 3 and parts[1] in ("-->", "-.->") and {parts[0], parts[2]} <= set(agents):
            edges.add((parts[0], parts[2]))
    return edges


@pytest.mark.parametrize("style", ["swarm", "supervisor"])
def test_the_drawing_links_only_the_handoffs_policy_allows(style: str) -> None:
    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=ScriptedChatModel.of([]))
        graph = getattr(team, style)().compile()
        allowed = {(a, b) for a in team.agents for b in team.targets(a)}
        return drawn_handoffs(graph, team.agents), allowed, len(team.agents)

    (drawn, allowed, size), _ = run(body)
    assert drawn == allowed
    assert ("concierge", "fraud_agent") in drawn
    assert ("fraud_agent", "card_recommendation") not in drawn  # not among its peers
    assert len(drawn) < size * (size - 1)


def test_a_users_graph_on_messages_state_is_refused_at_build_time() -> None:
    async def body(engine: AsyncEngine) -> Any:
        HandoffGraph(engine, model=ScriptedChatModel.of([])).add_to(StateGraph(MessagesState))

    with pytest.raises(UsageError, match=r"lacks 'active_agent', 'handoff_hops'.*HandoffState"):
        run(body)


def test_handoff_tools_in_a_users_messages_state_graph_keep_the_sender_and_loop_guard(
    write_files: Any,
) -> None:
    folder = write_files(ONE_HOP)  # max_hops: 1
    model = ScriptedChatModel.of([call("to_b", reason="yours"), call("to_a", reason="back"),
                                  say("Still b: the loop guard said no.")])

    def agent(team: HandoffGraph, name: str) -> Any:
        async def think(state: MessagesState) -> dict[str, Any]:
            return {"messages": [await model.ainvoke(state["messages"])]}

        graph = StateGraph(MessagesState)
        graph.add_node("model", think)
        graph.add_node("tools", ToolNode(team.handoff_tools(name)))
        graph.add_edge(START, "model")
        graph.add_conditional_edges("model", tools_condition, ["tools", END])
        graph.add_edge("tools", "model")
        return graph.compile()

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        graph = StateGraph(MessagesState)
        for name in ("a", "b"):
            graph.add_node(name, agent(team, name), destinations=team.targets(name))
            graph.add_edge(name, END)
        graph.add_edge(START, "a")
        return await graph.compile().ainvoke({"messages": [HumanMessage("go")]}, THREAD)

    state, records = run(body, folder)
    assert [(r.request.from_agent, r.request.to_agent, r.status) for r in records] == [
        ("a", "b", HandoffStatus.pending), ("b", "a", HandoffStatus.rejected)]
    assert records[1].response.reason.startswith("loop")
    assert state["messages"][-1].content == "Still b: the loop guard said no."


def test_own_nodes_plug_in_and_their_turns_move_the_records(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    model = ScriptedChatModel.of([call("to_b", reason="yours")])
    turns: list[str] = []

    async def own_b(state: dict[str, Any]) -> dict[str, Any]:
        turns.append(state["active_agent"])
        return {"messages": [AIMessage("b, my own node.")]}

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model, nodes={"b": RunnableLambda(own_b)})
        state = await team.swarm().compile().ainvoke({"messages": [HumanMessage("go")]}, THREAD)
        await team.end("t-1")
        return state

    state, records = run(body, folder)
    assert turns == ["b"] and state["messages"][-1].content == "b, my own node."
    assert [[m.to.value for m in r.history] for r in records] == [
        ["pending", "accepted", "in_progress", "completed"]]


def test_nodes_for_unknown_agents_are_a_usage_error() -> None:
    async def body(engine: AsyncEngine) -> Any:
        HandoffGraph(engine, model=ScriptedChatModel.of([]), nodes={"nobody": RunnableLambda(id)})

    with pytest.raises(UsageError, match="'nobody', not enabled agents"):
        run(body)
