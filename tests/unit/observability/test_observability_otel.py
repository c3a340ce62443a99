"""OpenTelemetry: each scenario produces exactly the expected spans (names, parents, attributes,
events, status) in the SDK's in-memory exporter and the expected metric deltas in an in-memory
metric reader; trace context follows work into threads, async hooks and pump hops."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.extras import need

need("opentelemetry.sdk.trace", extra="otel", group="observability")

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import StatusCode  # noqa: E402

from engine import Engine  # noqa: E402
from engine.observability import JsonLogObserver  # noqa: E402
from engine.observability.otel import OTelObserver  # noqa: E402
from engine.pump import Pump  # noqa: E402
from engine.redaction import REDACTED  # noqa: E402
from tests.unit.observability.scenarios import (  # noqa: E402
    bounce,
    refused,
    reject_reload,
    routed,
    run_chain,
)


class Telemetry:
    """A tracer provider exporting to memory and a meter provider read on demand."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> dict[tuple[tuple[str, Any], ...], Any]:
        """The data points of metric `name`: sorted attributes -> value (count for histograms)."""
        found = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        for point in metric.data.data_points:
                            value = getattr(point, "value", None)
                            found[tuple(sorted(point.attributes.items()))] = (
                                point.count if value is None else value)
        return found


@pytest.fixture
def otel(engine: Engine) -> Iterator[Telemetry]:
    telemetry = Telemetry()
    engine.observe(OTelObserver(tracer_provider=telemetry.tracer_provider,
                                meter_provider=telemetry.meter_provider))
    yield telemetry
    telemetry.tracer_provider.shutdown()
    telemetry.meter_provider.shutdown()


def events(span: ReadableSpan) -> list[tuple[str, dict[str, Any]]]:
    return [(event.name, dict(event.attributes or {})) for event in span.events]


def test_a_routed_handoff_is_one_span_with_genai_and_handoff_attributes(
    engine: Engine, otel: Telemetry
) -> None:
    outcome = routed(engine)
    (span,) = otel.finished()
    assert (span.name, span.kind, span.status.status_code, span.parent) == (
        "handoff concierge", trace.SpanKind.INTERNAL, StatusCode.UNSET, None)
    assert dict(span.attributes or {}) == {  # routed from words: no GenAI operation
        "gen_ai.agent.name": "concierge",
        "gen_ai.conversation.id": "call-1", "handoff.outcome": "routed",
        "handoff.target": "fraud_agent", "handoff.layer": "rule",
        "handoff.rule": "lost-or-stolen-card", "handoff.record.id": outcome.record.record_id,
        "handoff.config.version": engine.version, "handoff.keywords.matched": 1,
    }
    assert events(span) == []
    assert otel.points("handoffs") == {
        (("layer", "rule"), ("outcome", "routed"), ("reason", "none")): 1}
    assert otel.points("handoff.route.duration") == {
        (("layer", "rule"), ("outcome", "routed")): 1}
    assert otel.points("handoff.records")[(("status", "pending"),)] == 1


def test_a_loop_refusal_is_a_span_with_its_reason_and_the_rejected_move(
    engine: Engine, otel: Telemetry
) -> None:
    session, routed_before = bounce(engine)
    otel.spans.clear()
    outcome = refused(engine, session)
    (span,) = otel.finished()
    record_id = outcome.record.record_id
    assert span.name == "execute_tool handoff_concierge"  # a tool call: that tool's execution
    assert span.status.status_code is StatusCode.UNSET
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool", "gen_ai.tool.type": "function",
        "gen_ai.agent.name": "fraud_agent",
        "gen_ai.conversation.id": "call-2", "gen_ai.tool.name": "handoff_concierge",
        "handoff.outcome": "refused", "handoff.target": "concierge",
        "handoff.layer": "trigger", "handoff.refusal.reason": "loop",
        "handoff.refusal.message": outcome.record.response.reason,  # type: ignore[union-attr]
        "handoff.record.id": record_id, "handoff.config.version": engine.version,
    }
    assert events(span) == [("handoff.moved", {
        "handoff.record.id": record_id, "handoff.trigger": "reject",
        "handoff.from_state": "pending", "handoff.to_state": "rejected",
        "handoff.actor": "policy"})]
    assert otel.points("handoffs") == {
        (("layer", "trigger"), ("outcome", "routed"), ("reason", "none")): routed_before,
        (("layer", "trigger"), ("outcome", "refused"), ("reason", "loop")): 1}
    assert otel.points("handoff.lifecycle.moves") == {
        (("from_state", "pending"), ("to_state", "rejected"), ("trigger", "reject")): 1}


def test_a_rejected_reload_is_an_error_span_with_redacted_issue_events(
    folder: Path, engine: Engine, otel: Telemetry
) -> None:
    serving = engine.version
    result = reject_reload(folder, engine)
    (span,) = otel.finished()
    assert span.name == "handoff.config.reload" and span.parent is None
    assert span.status.status_code is StatusCode.ERROR
    assert dict(span.attributes or {}) == {
        "handoff.config.name": "banking-concierge", "handoff.config.version": serving,
        "handoff.config.previous_version": serving, "handoff.reload.outcome": "rejected",
        "handoff.reload.issues": 1, "error.type": "config_rejected",
    }
    issue = result.issues[0]
    assert events(span) == [("handoff.config.issue", {
        "handoff.issue.file": issue.file, "handoff.issue.line": issue.line,
        "handoff.issue.col": issue.col, "handoff.issue.json_path": issue.json_path,
        "handoff.issue.code": "type", "handoff.issue.message": REDACTED,
        "handoff.issue.severity": "error"})]
    assert span.end_time - span.start_time == pytest.approx(result.duration_s * 1e9, rel=0.05)
    key = (("config", "banking-concierge"),)
    assert otel.points("handoff.config.reload.attempts") == {key: 1}
    assert otel.points("handoff.config.reload.failures") == {key: 1}
    assert otel.points("handoff.config.last_reload.successful") == {key: 0}
    assert otel.points("handoff.config.info") == {
        (("config", "banking-concierge"), ("version", serving)): 1}


def test_a_pump_chain_across_three_listeners_is_one_trace_hop_by_hop(
    engine: Engine, otel: Telemetry
) -> None:
    tracer = otel.tracer_provider.get_tracer("test")

    async def main() -> Pump:
        with tracer.start_as_current_span("caller turn"):
            return await run_chain(engine)

    pump = asyncio.run(main())  # held: a pump is reported while it exists
    *handlers, caller = otel.finished()
    assert caller.name == "caller turn"
    names = [span.name for span in sorted(handlers, key=lambda s: s.start_time or 0)]
    assert names == ["invoke_agent desk", "invoke_agent triage", "invoke_agent specialist",
                     "invoke_agent triage", "invoke_agent desk"]
    ordered = sorted(handlers, key=lambda s: s.start_time or 0)
    parents = [caller, *ordered[:-1]]
    for span, parent in zip(ordered, parents, strict=True):
        assert span.parent is not None and span.parent.span_id == parent.context.span_id
        assert span.context.trace_id == caller.context.trace_id
    thread = ordered[0].attributes["gen_ai.conversation.id"]  # type: ignore[index]
    assert dict(ordered[2].attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "specialist",
        "gen_ai.conversation.id": thread,
        "handoff.pump.thread_id": ordered[2].attributes["handoff.pump.thread_id"],  # type: ignore[index]
        "handoff.pump.sender": "triage", "handoff.pump.sent": 1,
    }
    moves = [[(name, attrs["handoff.trigger"]) for name, attrs in events(span)]
             for span in ordered]
    assert moves == [[], [("handoff.moved", "accept"), ("handoff.moved", "start")],
                     [("handoff.moved", "accept"), ("handoff.moved", "start"),
                      ("handoff.moved", "complete")],
                     [("handoff.moved", "complete")], []]
    assert otel.points("handoff.pump.delivered") == {(): 5}
    assert otel.points("handoff.pump.handled") == {(): 5}
    assert otel.points("handoff.pump.queue.depth") == {
        (("listener", "desk"),): 0, (("listener", "triage"),): 0,
        (("listener", "specialist"),): 0}
    assert pump.stats().handled == 5


def test_a_later_move_outside_any_span_continues_the_trace_of_its_handoff(
    engine: Engine, otel: Telemetry
) -> None:
    record_id = routed(engine).record.record_id
    engine.accept(record_id)
    handoff_span, move = otel.finished()
    assert move.name == "handoff.move accept" and move.parent is not None
    assert (move.parent.span_id, move.context.trace_id) == (
        handoff_span.context.span_id, handoff_span.context.trace_id)
    assert events(move)[0][1]["handoff.to_state"] == "accepted"


def test_a_tool_call_id_is_on_the_span_and_a_turn_that_routes_nowhere_is_no_refusal(
    engine: Engine, otel: Telemetry
) -> None:
    session = engine.session(session_id="call-3")
    engine.handoff("help", session=session, tool="handoff_fraud_agent",
                   tool_args={"card_last4": "4421"}, tool_call_id="call_Ab12")
    stayed = engine.handoff("what a lovely day", session=engine.session(session_id="call-4"))
    assert stayed.target is None and stayed.reason == "no_route"
    called, words = otel.finished()
    assert called.name == "execute_tool handoff_fraud_agent"
    assert (called.attributes or {})["gen_ai.tool.call.id"] == "call_Ab12"
    assert words.name == "handoff concierge"
    assert (words.attributes or {})["handoff.outcome"] == "stayed"
    assert "handoff.refusal.reason" not in (words.attributes or {})
    assert otel.points("handoffs")[
        (("layer", "none"), ("outcome", "stayed"), ("reason", "none"))] == 1


def test_trace_context_follows_a_handoff_into_a_thread_and_an_async_hook(
    engine: Engine, otel: Telemetry
) -> None:
    tracer = otel.tracer_provider.get_tracer("test")
    seen: list[trace.Span] = []

    async def hook(event: Any) -> None:
        seen.append(trace.get_current_span())

    engine.on("handoff_created", hook)

    async def main() -> None:
        with tracer.start_as_current_span("voice turn"):
            await asyncio.to_thread(engine.handoff, "my card was stolen", sender="concierge")
            engine.handoff("my card was stolen", sender="concierge")
            await asyncio.sleep(0.01)

    asyncio.run(main())
    threaded, inline, turn = otel.finished()
    assert threaded.parent.span_id == inline.parent.span_id == turn.context.span_id  # type: ignore[union-attr]
    assert [span.get_span_context().span_id for span in seen] == [
        threaded.context.span_id, inline.context.span_id]


def test_a_handoff_that_raises_ends_its_span_as_an_error(folder: Path) -> None:
    from engine.stores import MemoryStore

    class Broken(MemoryStore):
        def add(self, record: Any) -> None:
            raise OSError("disk full")

    telemetry = Telemetry()
    with Engine(folder, store=Broken(), sweep_interval_s=None) as broken:
        broken.observe(OTelObserver(tracer_provider=telemetry.tracer_provider,
                                    meter_provider=telemetry.meter_provider))
        with pytest.raises(OSError):
            broken.handoff("hi", sender="concierge", tool="handoff_fraud_agent")
        (span,) = telemetry.finished()
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes["error.type"] == "OSError"  # type: ignore[index]
        assert trace.get_current_span() is trace.INVALID_SPAN  # the context was restored
        assert telemetry.points("handoffs") == {
            (("layer", "none"), ("outcome", "error"), ("reason", "none")): 1}


def test_json_log_lines_carry_the_trace_id_of_their_span(
    folder: Path, engine: Engine, otel: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    engine.observe(JsonLogObserver())
    with caplog.at_level(logging.INFO, logger="engine.events"):
        routed(engine)
        reject_reload(folder, engine)
    handoff_span, reload_span = otel.finished()
    lines = [record.handoff_event for record in caplog.records  # type: ignore[attr-defined]
             if record.name == "engine.events"]
    assert [(line["event"], line["trace_id"], line["span_id"]) for line in lines] == [
        ("handoff", f"{handoff_span.context.trace_id:032x}",
         f"{handoff_span.context.span_id:016x}"),
        ("reload", f"{reload_span.context.trace_id:032x}",
         f"{reload_span.context.span_id:016x}"),
    ]
