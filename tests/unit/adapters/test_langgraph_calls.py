"""A call through a real LangGraph swarm graph (langchain-core's fake chat model scripted): the
router routes the caller's words by the engine's rules, a refused handoff tool answers with a
tool error, a reload mid-call changes the tools the next turn sees, and every record ends where
the conversation did: statuses, histories and OpenTelemetry spans asserted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import BANKING, framework

framework("langgraph", "langgraph")
framework("opentelemetry.sdk", "otel")

from langchain_core.messages import HumanMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from engine.adapters.langgraph import HandoffGraph  # noqa: E402
from engine.adapters.lifecycle import SESSION_KEY, LifecyclePolicy  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.langgraph import ScriptedChatModel  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.observability.otel import OTelObserver  # noqa: E402
from engine.records.models import FailureReason  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402

STOLEN = "Somebody has my stolen card, freeze it"
THREAD = {"configurable": {"thread_id": "call-7"}}


class Traced:
    """An engine on `config` whose OTel observer exports spans to memory."""

    def __init__(self, config: Path) -> None:
        self.spans = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.engine = Engine(config)
        self.engine.observe(OTelObserver(tracer_provider=provider, metrics=False))

    def run(self, body: Callable[[AsyncEngine], Any]) -> Any:
        async def main() -> Any:
            async with AsyncEngine(self.engine) as engine:
                return await body(engine), await engine.query()

        return asyncio.run(main())

    def names(self) -> list[str]:
        return [span.name for span in self.spans.get_finished_spans()]

    def handoffs(self) -> list[dict[str, Any]]:
        """Each handoff span's name and attributes: `handoff {sender}` when routed from the
        caller's words, `execute_tool {tool}` when a model's tool call asked for it."""
        return [{"name": span.name, **(span.attributes or {})}
                for span in self.spans.get_finished_spans()
                if span.name.startswith(("handoff ", "execute_tool "))]

    def traces(self) -> set[int]:
        return {span.context.trace_id for span in self.spans.get_finished_spans()}


def moves(record: Any) -> list[str]:
    return [move.to.value for move in record.history]


def test_a_rule_fires_on_the_callers_words_and_the_record_follows_the_call() -> None:
    traced = Traced(BANKING)
    model = ScriptedChatModel.of([say("Fraud team: the card is frozen."), say("Anything else?")])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        graph = team.swarm().compile(checkpointer=InMemorySaver())
        first = await graph.ainvoke({"messages": [HumanMessage(STOLEN)]}, THREAD,
                                    context={"customer_id": "C-1042"})
        middle = [r.status.value for r in await engine.query()]
        second = await graph.ainvoke({"messages": [HumanMessage("No, thanks")]}, THREAD)
        await team.end("call-7")
        return first, second, middle, team.conversation("call-7")

    (first, second, middle, left), records = traced.run(body)
    assert first["active_agent"] == "fraud_agent" and second["active_agent"] == "fraud_agent"
    assert first["handoff_hops"] == [["concierge", "fraud_agent"]]
    assert first["handoff_session"] == "call-7" and left is None
    assert middle == ["in_progress"]  # the fraud agent took its first turn
    [record] = records  # "No, thanks" routes nowhere: nothing recorded
    assert moves(record) == ["pending", "accepted", "in_progress", "completed"]
    assert record.request.context[SESSION_KEY] == "call-7"
    assert record.result == {"ended": "call"}
    # fraud_agent shares `carry`: it starts from the caller's words, with a brief
    system, *rest = model.script.seen[0]["messages"]
    assert "from concierge" in system.content and '"customer_id": "C-1042"' in system.content
    assert [m.content for m in rest] == [STOLEN]
    [span] = traced.handoffs()
    assert span["handoff.layer"] == "rule" and span["handoff.rule"] == "lost-or-stolen-card"
    assert span["name"] == "handoff concierge" and "gen_ai.operation.name" not in span
    assert span["gen_ai.conversation.id"] == "call-7"
    assert [n for n in traced.names() if n.startswith("handoff.move")] == [
        "handoff.move accept", "handoff.move start", "handoff.move complete"]
    assert len(traced.traces()) == 1  # the moves continue the handoff's trace


def test_the_router_routes_from_the_holder_the_threads_state_names() -> None:
    model = ScriptedChatModel.of([say("Hello, how can I help?"), say("Fraud team here.")])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).swarm().compile(checkpointer=InMemorySaver())
        await graph.ainvoke({"messages": [HumanMessage("Hello")]}, THREAD)
        # the thread is edited: its state now says claims holds the call (the session does not)
        await graph.aupdate_state(THREAD, {"active_agent": "claims"})
        words = "Turns out I never authorized this purchase at all."
        return await graph.ainvoke({"messages": [HumanMessage(words)]}, THREAD)

    state, records = Traced(BANKING).run(body)
    assert state["active_agent"] == "fraud_agent"
    assert [(r.request.from_agent, r.request.to_agent) for r in records] == [
        ("claims", "fraud_agent")]


def test_a_refused_tool_handoff_is_a_tool_error_and_the_retry_completes_on_hand_on() -> None:
    traced = Traced(BANKING)
    model = ScriptedChatModel.of([
        call("handoff_fraud_agent", reason="x"),                         # payload refused
        call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
        call("handoff_concierge", reason="card frozen"),                 # fraud hands back
        say("Welcome back."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        graph = team.swarm().compile(checkpointer=InMemorySaver())
        state = await graph.ainvoke({"messages": [HumanMessage("Can you help me with my card?")]},
                                    THREAD)
        await team.end("call-7")
        return state

    state, records = traced.run(body)
    assert state["handoff_hops"] == [["concierge", "fraud_agent"], ["fraud_agent", "concierge"]]
    refusal = next(m for m in state["messages"] if isinstance(m, ToolMessage))
    assert refusal.status == "error" and "invalid_payload" in refusal.content
    assert refusal.artifact == {"reason": "invalid_payload", "record_id": records[0].record_id}
    assert [r.status.value for r in records] == ["rejected", "completed", "completed"]
    assert records[1].result == {"handed_on_to": "concierge"}
    refused, *_ = spans = traced.handoffs()
    assert refused["name"] == "execute_tool handoff_fraud_agent"
    assert refused["handoff.refusal.reason"] == "invalid_payload"
    assert refused["gen_ai.tool.call.id"] == refusal.tool_call_id
    assert [span["name"] for span in spans] == [
        "execute_tool handoff_fraud_agent", "execute_tool handoff_fraud_agent",
        "execute_tool handoff_concierge"]
    assert all(span["gen_ai.conversation.id"] == "call-7" for span in spans)


def test_a_run_that_errors_fails_the_record_with_the_reason() -> None:
    model = ScriptedChatModel.of([])  # the fraud agent's model has nothing to say: it raises

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).swarm().compile()
        try:
            await graph.ainvoke({"messages": [HumanMessage(STOLEN)]}, THREAD)
        except UsageError as error:
            return str(error)
        return None

    error, records = Traced(BANKING).run(body)
    assert error is not None and "ran out of steps" in error
    [record] = records
    assert moves(record) == ["pending", "accepted", "in_progress", "failed"]
    assert record.failure is FailureReason.error
    assert record.response.reason.startswith("The run failed: UsageError:")


ONE_HOP = {
    "engine.yaml": "version: 1\nname: t\nentry: a\npolicies: {max_hops: 2}\n"
                   "include: {agents: ['agents/*.yaml']}\n",
    "agents/a.yaml": "name: a\nhandoff: {trigger: to_a, is_entry_point: true}\npeers: ['*']\n",
    "agents/b.yaml": "name: b\nhandoff: {trigger: to_b}\npeers: ['*']\n",
}


def test_a_reload_mid_call_gives_the_next_turn_the_new_tools(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    model = ScriptedChatModel.of([say("Hello, this is a."),
                                  call("transfer_to_b", reason="the new name"), say("b here.")])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model)
        graph = team.swarm().compile(checkpointer=InMemorySaver())
        await graph.ainvoke({"messages": [HumanMessage("hi")]}, THREAD)
        (folder / "agents/b.yaml").write_text(
            ONE_HOP["agents/b.yaml"].replace("to_b", "transfer_to_b"), encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        state = await graph.ainvoke({"messages": [HumanMessage("over to b")]}, THREAD)
        await team.end("call-7")
        return state

    state, records = Traced(folder).run(body)
    # bound by a's build before the reload, a's rebuild after it, then b's first build
    assert [[tool["function"]["name"] for tool in tools] for tools in model.bound] == [
        ["to_b"], ["transfer_to_b"], ["to_a"]]
    assert state["active_agent"] == "b" and state["messages"][-1].content == "b here."
    assert [(r.request.to_agent, r.status.value) for r in records] == [("b", "completed")]


class Stalled(ScriptedChatModel):
    """A model that never answers: it says it started, then waits until cancelled."""

    started: Any = None

    async def _agenerate(self, *args: Any, **kwargs: Any) -> Any:
        self.started.set()
        await asyncio.Event().wait()


def test_a_cancelled_run_fails_the_record_as_cancelled() -> None:
    async def body(engine: AsyncEngine) -> Any:
        model = Stalled.of([])
        model.started = asyncio.Event()
        graph = HandoffGraph(engine, model=model).swarm().compile()
        run = asyncio.create_task(graph.ainvoke({"messages": [HumanMessage(STOLEN)]}, THREAD))
        await model.started.wait()  # the fraud agent's turn has begun
        run.cancel()
        try:
            await run
        except asyncio.CancelledError:
            return "cancelled"
        return "finished"

    ended, records = Traced(BANKING).run(body)
    assert ended == "cancelled"
    [record] = records
    assert moves(record) == ["pending", "accepted", "in_progress", "failed"]
    assert record.failure is FailureReason.cancelled
    assert record.response.reason == "The run was cancelled."


def test_policy_complete_on_run_end_completes_when_the_agents_node_finishes() -> None:
    model = ScriptedChatModel.of([say("Fraud team: the card is frozen.")])

    async def body(engine: AsyncEngine) -> Any:
        team = HandoffGraph(engine, model=model, policy=LifecyclePolicy(complete_on="run_end"))
        await team.swarm().compile().ainvoke({"messages": [HumanMessage(STOLEN)]}, THREAD)

    _, records = Traced(BANKING).run(body)
    assert [moves(record) for record in records] == [
        ["pending", "accepted", "in_progress", "completed"]]
    assert records[0].result == {"ended": "run"}


def test_strict_handoff_tools_are_bound_closed_and_nulls_for_optional_fields_are_dropped() -> None:
    model = ScriptedChatModel.of([
        call("handoff_fraud_agent", reason="two charges", card_last4="4421",
             suspected_amount=None),
        say("Fraud team here."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model, strict=True).swarm().compile(
            checkpointer=InMemorySaver())
        return await graph.ainvoke({"messages": [HumanMessage("Can you help me?")]}, THREAD)

    state, records = Traced(BANKING).run(body)
    concierge = next(tools for tools in model.bound
                     if "handoff_fraud_agent" in [t["function"]["name"] for t in tools])
    fraud = next(t["function"] for t in concierge if t["function"]["name"] == "handoff_fraud_agent")
    assert fraud["strict"] is True and fraud["parameters"]["additionalProperties"] is False
    assert fraud["parameters"]["required"] == ["reason", "suspected_amount", "card_last4"]
    assert fraud["parameters"]["properties"]["suspected_amount"]["type"] == ["number", "null"]
    assert state["active_agent"] == "fraud_agent"
    [record] = records  # routed: a null suspected_amount would break its `type: number`
    assert (record.request.to_agent, record.status.value) == ("fraud_agent", "in_progress")


def test_without_strict_the_bound_handoff_tools_keep_the_schema_as_written() -> None:
    model = ScriptedChatModel.of([say("Hello.")])

    async def body(engine: AsyncEngine) -> Any:
        graph = HandoffGraph(engine, model=model).swarm().compile()
        return await graph.ainvoke({"messages": [HumanMessage("Can you help me?")]})

    Traced(BANKING).run(body)
    fraud = next(t["function"] for tools in model.bound for t in tools
                 if t["function"]["name"] == "handoff_fraud_agent")
    assert "strict" not in fraud and fraud["parameters"]["required"] == ["reason"]
