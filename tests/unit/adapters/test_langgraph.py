"""LangGraph adapter, run by real LangGraph graphs with langchain-core's fake chat model: the
handoff tools' `Command(goto=...)` is the engine's decision, in swarm and supervisor graphs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, ONE_HOP, framework

framework("langgraph", "langgraph")

from langchain_core.messages import HumanMessage, SystemMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from engine.adapters.langgraph import HandoffGraph  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.langgraph import ScriptedChatModel  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402

RESEARCH = BANKING.parent / "research"
STOLEN = "Someone used my card 4421 last night."


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


def test_swarm_refuses_then_routes_and_the_next_turn_starts_on_the_new_agent() -> None:
    model = ScriptedChatModel.of([
        call("handoff_fraud_agent", reason="x"),                        # payload refused
        call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
        say("Fraud team here; your card is frozen."),
        say("Anything else on the fraud case?"),                      # turn 2: still fraud
    ])
    config = {"configurable": {"thread_id": "call-1"}}

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).swarm().compile(checkpointer=InMemorySaver())
        first = await graph.ainvoke({"messages": [HumanMessage(STOLEN)]}, config,
                                    context={"customer_id": "C-1042", "customer_tier": "gold"})
        second = await graph.ainvoke({"messages": [HumanMessage("Thanks!")]}, config)
        return first, second

    (first, second), records = run(body)
    assert first["active_agent"] == "fraud_agent"
    assert first["handoff_hops"] == [["concierge", "fraud_agent"]]
    assert first["messages"][-1].content == "Fraud team here; your card is frozen."
    assert second["messages"][-1].content == "Anything else on the fraud case?"
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.pending]
    assert records[0].response.reason.startswith("invalid_payload")
    assert records[1].request.task_description == STOLEN
    # the concierge's model saw the refusal, then retried
    refusal = model.script.seen[1]["messages"][-1]
    assert "refused" in refusal.content and "invalid_payload" in refusal.content
    # fraud_agent shares `carry`: it sees the caller's words and a brief with its carry keys
    system, *rest = model.script.seen[2]["messages"]
    assert isinstance(system, SystemMessage) and "from concierge" in system.content
    assert '"customer_id": "C-1042"' in system.content and "customer_tier" not in system.content
    assert [m.content for m in rest] == [STOLEN]


def test_supervisor_workers_report_back_through_the_engine() -> None:
    model = ScriptedChatModel.of([
        call("handoff_analyst", question="How big is the EU heat-pump market?"),
        say("Findings: about 3 million units a year."),                # analyst, then back
        say("Plan: the writer drafts a brief next."),                    # coordinator ends
    ])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).supervisor().compile()
        return await graph.ainvoke({"messages": [HumanMessage("Size the heat-pump market")]})

    state, records = run(body, RESEARCH)
    assert state["handoff_hops"] == [["coordinator", "analyst"], ["analyst", "coordinator"]]
    assert state["active_agent"] == "coordinator"
    assert [(r.request.from_agent, r.request.to_agent, r.status) for r in records] == [
        ("coordinator", "analyst", HandoffStatus.pending),
        ("analyst", "coordinator", HandoffStatus.pending),
    ]
    assert state["messages"][-1].content == "Plan: the writer drafts a brief next."


def test_supervisor_ends_when_the_engine_refuses_the_report_back(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    model = ScriptedChatModel.of([call("to_b", reason="do it"), say("Done.")])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).supervisor().compile()
        return await graph.ainvoke({"messages": [HumanMessage("go")]})

    state, records = run(body, folder)
    assert state["active_agent"] == "b" and state["messages"][-1].content == "Done."
    assert [r.status for r in records] == [HandoffStatus.pending, HandoffStatus.rejected]
    assert records[1].response.reason.startswith("loop")


def test_a_handoff_to_an_agent_without_a_node_is_a_clear_error() -> None:
    model = ScriptedChatModel.of([call("handoff_claims", reason="a claim")])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        team.agents.remove("claims")  # as if a reload had enabled claims after the build
        graph = team.swarm().compile()
        return await graph.ainvoke({"messages": [HumanMessage("I want to file a claim")]})

    with pytest.raises(UsageError, match="rebuild them after a reload"):
        run(body)


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
