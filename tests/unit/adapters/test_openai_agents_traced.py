"""A banking call end to end through the OpenAI Agents SDK's own Runner with a scripted model,
observed by the engine's OpenTelemetry observer, run (`Runner.run`) and streamed
(`Runner.run_streamed`) alike: routed by the caller's words, two refusals that
never become SDK handoffs, a reload mid-call, handed back and ended; every record where the call
left it, with its history and spans."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.extras import need

from .conftest import BANKING, framework

agents = framework("agents", "openai-agents")
need("opentelemetry.sdk.trace", extra="otel", group="observability")
agents.set_tracing_disabled(True)  # offline: no trace export

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from engine.adapters.openai_agents import AgentTeam  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.openai_agents import ScriptedModel  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.observability.otel import OTelObserver  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402

from .test_openai_agents_flow import Handoffs, moves, run  # noqa: E402
from .test_openai_agents_streamed import TURNS  # noqa: E402


@pytest.mark.parametrize("mode", ["run", "streamed"])
def test_a_call_routed_by_the_callers_words_refused_reloaded_and_completed(
    tmp_path: Path, mode: str,
) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    model = ScriptedModel([
        say("Fraud team here. Is the card yours?"),                        # routed by the rule
        call("handoff_investment_advisor", reason="not a peer of fraud"),  # hallucinated
        say("Understood, I will keep helping with the card."),
        call("handoff_compliance_desk", reason="formal complaint"),  # a peer no more (reload)
        call("handoff_concierge", reason="card frozen, back to the front desk"),
        say("Back at the front desk. Anything else?"),
    ])
    hooks = Handoffs()

    async def body(engine: AsyncEngine) -> Any:
        engine.engine.observe(OTelObserver(tracer_provider=provider, metrics=False))
        team = AgentTeam(engine, model=model, route_input=True)
        context = team.context(customer_id="C-1042")
        turn = TURNS[mode]
        first = await turn(team, "My card was stolen last night", context, hooks=hooks)
        second = await turn(team, "I think so, please help", context, hooks=hooks)
        fraud_yaml = folder / "agents" / "fraud_agent.yaml"
        text = fraud_yaml.read_text(encoding="utf-8")
        fraud_yaml.write_text(text.replace("peers: [concierge, claims, compliance_desk]",
                                           "peers: [concierge, claims]"), encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        third = await turn(team, "Freeze it please", context, hooks=hooks)
        await team.end(context)
        return [first, second, third], await engine.query()

    results, records = run(tmp_path, body, folder)
    assert [r.last_agent.name for r in results] == ["fraud_agent", "fraud_agent", "concierge"]
    assert [seen["streamed"] for seen in model.script.seen] == [mode == "streamed"] * 6
    assert hooks.seen == [("fraud_agent", "concierge")]  # refusals never became SDK handoffs
    assert [(r.request.from_agent, r.request.to_agent, r.status) for r in records] == [
        ("concierge", "fraud_agent", HandoffStatus.completed),       # the rule, on the words
        ("fraud_agent", "investment_advisor", HandoffStatus.rejected),
        ("fraud_agent", "compliance_desk", HandoffStatus.rejected),
        ("fraud_agent", "concierge", HandoffStatus.completed),
    ]
    routed, hallucinated, reloaded, back = records
    assert moves(routed) == ["pending", "accepted", "in_progress", "completed"]
    assert routed.result == {"handed_on_to": "concierge"}
    assert moves(back) == ["pending", "accepted", "in_progress", "completed"]
    assert back.result == {"ended": "call"}
    assert moves(hallucinated) == moves(reloaded) == ["pending", "rejected"]
    # the reload took effect mid-call: compliance_desk no longer offered to fraud_agent
    assert "handoff_compliance_desk" in model.script.seen[1]["handoffs"]
    assert "handoff_compliance_desk" not in model.script.seen[3]["handoffs"]
    # the model saw each refusal as the call's tool output and carried on
    retry = model.script.seen[2]["input"]
    refusal = next(item["output"] for item in retry
                   if isinstance(item, dict) and item.get("type") == "function_call_output")
    assert refusal.startswith("Handoff refused (")
    assert hallucinated.response is not None and hallucinated.response.reason in refusal
    finished = spans.get_finished_spans()
    names = [span.name for span in finished]
    assert names.count("handoff concierge") == 1  # the caller's words: no tool call
    tool_calls = [span for span in finished if span.name.startswith("execute_tool ")]
    assert [span.name for span in tool_calls] == [
        "execute_tool handoff_investment_advisor", "execute_tool handoff_compliance_desk",
        "execute_tool handoff_concierge"]
    assert all((span.attributes or {}).get("gen_ai.tool.call.id") for span in tool_calls)
    moved = [event.attributes["handoff.to_state"] for span in spans.get_finished_spans()
             for event in span.events if event.name == "handoff.moved"]
    assert moved.count("completed") == 2 and moved.count("in_progress") == 2
