"""Pipecat Flows adapter, driven through Pipecat's own pipeline, worker runner and FlowManager with
a scripted OpenAI service: handoff functions move between nodes only when the engine routes, the
router processor lets the engine's rules act on the caller's words, and the call's records move
from the pipeline's events."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, framework

framework("pipecat.flows", "pipecat")

from pipecat.flows import FlowManager, FlowsFunctionSchema  # noqa: E402
from pipecat.pipeline.pipeline import Pipeline  # noqa: E402
from pipecat.pipeline.worker import PipelineParams, PipelineWorker  # noqa: E402
from pipecat.processors.aggregators.llm_context import LLMContext  # noqa: E402
from pipecat.processors.aggregators.llm_response_universal import (  # noqa: E402
    LLMContextAggregatorPair,
)
from pipecat.workers.runner import WorkerRunner  # noqa: E402

from engine.adapters.lifecycle import MANUAL  # noqa: E402
from engine.adapters.pipecat import EngineFlow, FlowCall  # noqa: E402
from engine.adapters.scripted import Step, call, say  # noqa: E402
from engine.adapters.scripted.pipecat import ScriptedLLM, TextCaller  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.lifecycle import HandoffRecord, HandoffStatus  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from tests.extras import need  # noqa: E402

NEUTRAL = "Can you help me with something?"  # the engine keeps this with the concierge
STOLEN = "My card was stolen."  # the banking set's priority-100 rule `lost-or-stolen-card`
LIVED = [HandoffStatus.pending, HandoffStatus.accepted, HandoffStatus.in_progress]


class Line:
    """What a conversation function is given: the caller, the adapter, the call, the manager."""

    def __init__(self, caller: TextCaller, flow: EngineFlow, flow_call: FlowCall,
                 manager: FlowManager) -> None:
        self.caller, self.flow, self.call, self.manager = caller, flow, flow_call, manager


Talk = Callable[[Line], Awaitable[Any]]


def converse(steps: list[Step], talk: Talk, config: Path = BANKING, *,
             observe: Callable[[Engine], None] | None = None, **options: Any,
             ) -> tuple[Any, FlowCall, list[HandoffRecord], ScriptedLLM]:
    """Run `talk(line)` on a Pipecat pipeline (user aggregator, engine router, scripted LLM,
    assistant aggregator) under Pipecat's WorkerRunner; returns what it returned, the call, the
    handoff records once the pipeline has finished, and the model."""
    model = ScriptedLLM(steps)

    async def main() -> Any:
        engine = Engine(config)
        if observe is not None:
            observe(engine)
        async with AsyncEngine(engine) as async_engine:
            flow = EngineFlow(async_engine, **options)
            flow_call = flow.call(customer_id="C-1042", customer_tier="gold")
            aggregators = LLMContextAggregatorPair(LLMContext())
            pipeline = Pipeline([aggregators.user(), flow.router(flow_call), model,
                                 aggregators.assistant()])
            worker = PipelineWorker(pipeline, params=PipelineParams(), enable_rtvi=False)
            manager = FlowManager(llm=model, context_aggregator=aggregators, worker=worker)
            line = Line(TextCaller(worker, aggregators.assistant()), flow, flow_call, manager)
            result: list[Any] = []

            async def started(_worker: PipelineWorker, _frame: Any) -> None:
                await flow.start(manager, flow_call)

            async def conversation() -> None:
                result.append(await talk(line))

            worker.add_event_handler("on_pipeline_started", started)
            runner = WorkerRunner(handle_sigint=False)
            await runner.add_workers(worker)
            await asyncio.gather(runner.run(), conversation())
            return result[0], flow_call, await async_engine.query()

    result, flow_call, records = asyncio.run(main())
    return result, flow_call, records, model


def moves(record: HandoffRecord) -> list[HandoffStatus]:
    return [move.to for move in record.history]


def tool_results(seen: dict[str, Any]) -> list[Any]:
    return [json.loads(m["content"]) for m in seen["messages"] if m.get("role") == "tool"]


def refused_then_routed() -> list[Any]:
    """A greeting, a handoff whose payload is refused, the same handoff done right, a reply."""
    return [
        say("Hello, this is Ava."),
        call("handoff_fraud_agent", reason="x"),                      # payload refused
        call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
        say("I've frozen the card."),
    ]


def test_a_refusal_stays_on_the_node_and_a_routed_handoff_completes_when_the_call_ends() -> None:
    steps = refused_then_routed()

    async def talk(line: Line) -> Any:
        hello = await line.caller.reply()
        answer = await line.caller.say(NEUTRAL)
        node = line.manager.current_node
        await line.caller.hang_up()
        return hello, answer, node

    (hello, answer, node), flow_call, records, model = converse(steps, talk)
    assert (hello, answer, node) == ("Hello, this is Ava.", "I've frozen the card.", "fraud_agent")
    refused, routed = records
    assert refused.status is HandoffStatus.rejected and refused.request.to_agent == "fraud_agent"
    # the model saw the refusal as the function's error result, on the same node
    assert model.script.seen[2]["tools"] == model.script.seen[1]["tools"]
    (result,) = tool_results(model.script.seen[2])
    assert (result["status"], result["reason"]) == ("error", "invalid_payload")
    assert result["error"].startswith("Handoff refused (invalid_payload: payload from")
    # the routed one: accepted when fraud_agent's node was entered, completed at hang-up
    assert routed.status is HandoffStatus.completed and routed.result == {"ended": "call"}
    assert moves(routed) == [*LIVED, HandoffStatus.completed]
    assert routed.request.task_description == NEUTRAL
    assert routed.request.context["session_id"] == flow_call.session.session_id
    assert flow_call.session.path == ("concierge", "fraud_agent")
    assert model.script.seen[3]["tools"] == [
        "handoff_claims", "handoff_compliance_desk", "handoff_concierge"]


def test_the_engine_routes_the_callers_words_before_the_model_answers() -> None:
    need("opentelemetry.sdk.trace", extra="otel", group="observability")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from engine.observability.otel import OTelObserver

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    steps = [say("Hello, this is Ava."), say("Happy to help."), say("Let's freeze that card."),
             say("Thanks."), say("Frozen.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        stays = await line.caller.say(NEUTRAL)            # no route: nothing is recorded
        recorded = len(await line.flow.engine.query())
        moved = await line.caller.say(STOLEN)             # the rule fires on the caller's words
        # a specialist's caller is moved by rules only: these match an example and the fallback
        await line.caller.say("It ends in 4421.")
        await line.caller.say("Please freeze it.")
        await line.caller.hang_up()
        return stays, recorded, moved

    (stays, recorded, moved), flow_call, records, model = converse(
        steps, talk, observe=lambda engine: engine.observe(OTelObserver(
            tracer_provider=provider, metrics=False)))
    assert (stays, recorded, moved) == ("Happy to help.", 0, "Let's freeze that card.")
    (record,) = records
    assert record.status is HandoffStatus.completed and moves(record)[-1] is HandoffStatus.completed
    assert record.request.task_description == STOLEN
    # the model answered the stolen card on fraud_agent's node, never on the concierge's
    assert "handoff_concierge" in model.script.seen[2]["tools"]
    assert flow_call.session.path == ("concierge", "fraud_agent")
    (span,) = [s for s in spans.get_finished_spans() if s.name == "handoff concierge"]
    attributes = dict(span.attributes or {})
    assert (attributes["handoff.layer"], attributes["handoff.rule"]) == (
        "rule", "lost-or-stolen-card")
    assert attributes["gen_ai.conversation.id"] == flow_call.session.session_id
    moved_to = [e.attributes["handoff.to_state"] for s in spans.get_finished_spans()
                for e in s.events if e.name == "handoff.moved" and e.attributes]
    assert moved_to[-3:] == ["accepted", "in_progress", "completed"]
    provider.shutdown()


def test_each_handoff_function_is_traced_with_the_id_of_the_llms_call() -> None:
    need("opentelemetry.sdk.trace", extra="otel", group="observability")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from engine.observability.otel import OTelObserver

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    steps = refused_then_routed()

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        await line.caller.say(NEUTRAL)
        await line.caller.hang_up()

    _, _, records, model = converse(steps, talk, observe=lambda engine: engine.observe(
        OTelObserver(tracer_provider=provider, metrics=False)))
    given = model.tool_call_ids  # the ids the LLM gave its two calls
    assert len(given) == 2
    (refused,) = [m for m in model.script.seen[2]["messages"] if m["role"] == "tool"]
    assert refused["tool_call_id"] == given[0]  # as Pipecat put it in the context
    traced = [s for s in spans.get_finished_spans()
              if s.name == "execute_tool handoff_fraud_agent"]
    assert [(s.attributes or {}).get("gen_ai.tool.call.id") for s in traced] == given
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.completed]
    provider.shutdown()


def test_share_policy_carry_starts_the_target_afresh_and_its_caller_is_still_routed() -> None:
    steps = [say("Hello, this is Ava."),
             call("handoff_fraud_agent", reason="card used by someone else"), say("Fraud here."),
             say("Compliance here.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        await line.caller.say(NEUTRAL)
        # after the reset, the fraud desk's caller is heard: a rule moves them on
        answer = await line.caller.say("I want to make a formal complaint about this.")
        await line.caller.hang_up()
        return answer

    answer, flow_call, records, model = converse(steps, talk)
    fraud_turn = [(m.get("role"), m.get("content")) for m in model.script.seen[2]["messages"]]
    assert ("user", NEUTRAL) in fraud_turn
    assert ("assistant", "Hello, this is Ava.") not in fraud_turn  # concierge's words stayed
    assert answer == "Compliance here."
    assert flow_call.session.path == ("concierge", "fraud_agent", "compliance_desk")
    assert [(r.request.to_agent, r.status, r.result) for r in records] == [
        ("fraud_agent", HandoffStatus.completed, {"handed_on_to": "compliance_desk"}),
        ("compliance_desk", HandoffStatus.completed, {"ended": "call"})]


def test_a_reload_mid_conversation_takes_effect_on_the_next_turn(tmp_path: Path) -> None:
    config = tmp_path / "banking"
    shutil.copytree(BANKING, config)
    card = config / "agents" / "card_recommendation.yaml"
    steps = [say("Hello, this is Ava."), say("Sure."), say("Of course.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        await line.caller.say(NEUTRAL)
        card.write_text(card.read_text(encoding="utf-8") + "enabled: false\n", encoding="utf-8")
        reloaded = await line.flow.engine.reload()
        await line.caller.say("And another thing?")
        await line.caller.hang_up()
        return reloaded

    reloaded, _, records, model = converse(steps, talk, config=config)
    assert reloaded.outcome == "applied"
    assert "handoff_card_recommendation" in model.script.seen[1]["tools"]
    assert "handoff_card_recommendation" not in model.script.seen[2]["tools"]
    assert records == []


def test_a_pipeline_error_fails_the_holders_record_with_the_reason() -> None:
    steps = [say("Hello, this is Ava."),
             call("handoff_fraud_agent", reason="card used by someone else")]  # then: no step

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        with pytest.raises(UsageError, match="ran out of steps"):
            await line.caller.say(NEUTRAL)
        await line.caller.hang_up()

    _, _, (record,), _ = converse(steps, talk)
    assert record.status is HandoffStatus.failed and moves(record) == [
        *LIVED, HandoffStatus.failed]
    assert record.response is not None
    assert record.response.reason.startswith("The run failed: UsageError: the model script")


def test_a_cancelled_pipeline_fails_the_holders_record_as_cancelled() -> None:
    steps = [say("Hello."), say("Fraud here.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        await line.caller.say(STOLEN)
        await line.manager.worker.cancel()

    _, _, (record,), _ = converse(steps, talk)
    assert record.status is HandoffStatus.failed and record.failure is not None
    assert record.failure.value == "cancelled"


def test_your_own_node_and_functions_plug_in_beside_the_handoffs() -> None:
    frozen: list[str] = []

    async def freeze_card(args: dict[str, Any], manager: FlowManager) -> Any:
        frozen.append(args["card_last4"])
        return {"status": "frozen"}, None

    node = {"task_messages": [{"role": "developer", "content": "Freeze the card first."}],
            "functions": [FlowsFunctionSchema(
                name="freeze_card", description="Freeze a card.",
                properties={"card_last4": {"type": "string"}}, required=["card_last4"],
                handler=freeze_card)]}
    steps = [say("Hello."), call("freeze_card", card_last4="4421"), say("Frozen.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        return await line.caller.say(STOLEN)

    async def talk_and_hang_up(line: Line) -> Any:
        answer = await talk(line)
        await line.caller.hang_up()
        return answer

    answer, _, (record,), model = converse(steps, talk_and_hang_up,
                                          nodes={"fraud_agent": node})
    assert (answer, frozen) == ("Frozen.", ["4421"])
    assert model.script.seen[1]["tools"][0] == "freeze_card"
    assert "handoff_concierge" in model.script.seen[1]["tools"]
    assert {"role": "developer", "content": "Freeze the card first."} in (
        model.script.seen[1]["messages"])
    assert record.status is HandoffStatus.completed


def test_an_unknown_toolbox_tool_is_a_usage_error_naming_it() -> None:
    async def main() -> None:
        async with AsyncEngine(Engine(BANKING)) as engine:
            flow = EngineFlow(engine, tools={"verify_caller": object()})
            with pytest.raises(UsageError, match="get_account_summary"):
                flow.node("concierge", flow.call())

    asyncio.run(main())


def test_the_manual_policy_leaves_the_records_to_your_code() -> None:
    steps = [say("Hello."), say("Fraud here.")]

    async def talk(line: Line) -> Any:
        await line.caller.reply()
        await line.caller.say(STOLEN)
        await line.caller.hang_up()

    _, _, (record,), _ = converse(steps, talk, policy=MANUAL)
    assert record.status is HandoffStatus.pending and moves(record) == [HandoffStatus.pending]
