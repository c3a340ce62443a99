"""OpenTelemetry traces and metrics (extra `otel`): a span per handoff with events for lifecycle
moves, a span per reload, a span per pump handler call whose parent is the span that sent the
message (its trace context rides on the envelope), and the metric table through the OTel API.

Names follow the GenAI semantic conventions where they define one, `handoff.*` where they do
not: a handoff a model asked for with a tool call is that tool's execution (`execute_tool
{tool}`, with `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
`gen_ai.tool.type`); one routed from the caller's words is no GenAI operation (the conventions
have none for a routing decision), so its span is `handoff {sender}` without an operation name.
Both carry `gen_ai.agent.name` (the sender), `gen_ai.conversation.id` and `error.type`. A later
lifecycle move outside any span continues the trace of the handoff that created the record.
It never configures providers or exporters: that is the application's job.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import __version__
from engine.errors import MissingExtra
from engine.metrics import catalog
from engine.observer.seam import Carrier, Observer

try:
    from opentelemetry import context, propagate, trace
    from opentelemetry import metrics as otel_metrics
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ModuleNotFoundError as missing:
    raise MissingExtra("otel", missing.name or "opentelemetry") from missing

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from engine.observer.facts import HandoffFacts, ReloadFacts
    from engine.observer.watched import (
        ObservedEngine,
        ObservedEnvelope,
        ObservedListener,
        ObservedOutcome,
        ObservedPump,
    )
    from engine.records.models import HandoffRecord, HandoffStatus

SCOPE = "handoff-engine"
LINKS_KEPT = 10_000
"""How many recent handoff spans a later lifecycle move can still continue the trace of."""

Token = tuple[trace.Span, Any]
"""A span and the context token that made it current."""
_FACTS = (("session_id", "gen_ai.conversation.id"), ("tool", "gen_ai.tool.name"),
          ("tool_call_id", "gen_ai.tool.call.id"),
          ("target", "handoff.target"), ("layer", "handoff.layer"), ("rule", "handoff.rule"),
          ("reason", "handoff.refusal.reason"), ("refusal", "handoff.refusal.message"),
          ("record_id", "handoff.record.id"), ("config_version", "handoff.config.version"),
          ("keywords", "handoff.keywords.matched"), ("examples", "handoff.examples.nearest"),
          ("error", "error.type"))
TOOL_CALL = MappingProxyType({"gen_ai.operation.name": "execute_tool",
                              "gen_ai.tool.type": "function"})
"""What a handoff span asked for by a tool call adds: the GenAI operation it is."""


class OTelObserver(Observer):
    """Spans through `tracer_provider` and metrics through `meter_provider` (the global ones
    unless given); `traces=False` or `metrics=False` turns one off."""

    outermost = True

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: otel_metrics.MeterProvider | None = None,
        traces: bool = True,
        metrics: bool = True,
    ) -> None:
        self.traces = traces
        self.sources = catalog.Sources()
        self._tracer = trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
        self._links: OrderedDict[str, trace.SpanContext] = OrderedDict()
        self._instruments = _Instruments(self.sources, meter_provider) if metrics else None

    def attach(self, engine: ObservedEngine) -> None:
        self.sources.engines.add(engine)

    def pump_started(self, pump: ObservedPump) -> None:
        self.sources.pumps.add(pump)

    # -- handoffs and lifecycle moves --------------------------------------------------------
    def handoff_started(self) -> Any:
        if not self.traces:
            return None
        span = self._tracer.start_span("handoff", kind=SpanKind.INTERNAL)
        return span, context.attach(trace.set_span_in_context(span))

    def handoff_finished(self, token: Token | None, facts: HandoffFacts) -> None:
        if self._instruments is not None:
            self._instruments.handoff(facts)
        if token is None:
            return
        span, attached = token
        context.detach(attached)
        if span.is_recording():  # not sampled out
            span.update_name(f"execute_tool {facts.tool}" if facts.tool else
                             f"handoff {facts.sender}")
            span.set_attributes(_handoff_attributes(facts))
            if facts.error is not None:
                span.set_status(Status(StatusCode.ERROR, facts.error))
            if facts.record_id is not None:
                self._remember(facts.record_id, span.get_span_context())
        span.end()

    def record_moved(self, record: HandoffRecord) -> None:
        if self._instruments is not None:
            self._instruments.moved(record)
        if not self.traces:
            return
        move = record.history[-1]
        attributes = {"handoff.record.id": record.record_id, "handoff.trigger": move.trigger,
                      "handoff.from_state": _state(move.from_),
                      "handoff.to_state": move.to.value, "handoff.actor": move.actor}
        if record.failure is not None:
            attributes["handoff.failure"] = record.failure.value
        current = trace.get_current_span()
        if current.is_recording():  # inside a handoff, a pump handler or the caller's span
            current.add_event("handoff.moved", attributes)
            return
        origin = self._links.get(record.record_id)  # unknown here: a root span of its own
        parent = None if origin is None else trace.set_span_in_context(
            trace.NonRecordingSpan(origin))
        span = self._tracer.start_span(f"handoff.move {move.trigger}", context=parent,
                                       attributes=attributes)
        span.add_event("handoff.moved", attributes)
        span.end()

    def _remember(self, record_id: str, span_context: trace.SpanContext) -> None:
        links = self._links  # each step is atomic; racing threads may overshoot by a few
        links[record_id] = span_context
        if len(links) > LINKS_KEPT:
            links.popitem(last=False)

    # -- reloads -----------------------------------------------------------------------------
    def reload_started(self, facts: ReloadFacts) -> Any:
        if not self.traces:
            return None
        began = time.time_ns() - int(facts.duration_s * 1e9)
        span = self._tracer.start_span("handoff.config.reload", start_time=began, attributes={
            "handoff.config.name": facts.config, "handoff.config.version": facts.version,
            "handoff.config.previous_version": facts.previous_version,
            "handoff.reload.outcome": facts.outcome, "handoff.reload.issues": facts.issue_count,
        })
        for issue in facts.issues:
            span.add_event("handoff.config.issue",
                           {f"handoff.issue.{key}": value for key, value in issue.items()})
        if facts.outcome == "rejected":
            span.set_attribute("error.type", "config_rejected")
            span.set_status(Status(StatusCode.ERROR, f"{facts.issue_count} issue(s)"))
        return span, context.attach(trace.set_span_in_context(span))

    def reload_finished(self, token: Token | None, facts: ReloadFacts) -> None:
        if token is not None:
            context.detach(token[1])
            token[0].end()

    # -- pump messages -----------------------------------------------------------------------
    def message_sent(self) -> Carrier | None:
        carrier: dict[str, str] = {}
        if self.traces:
            propagate.inject(carrier)
        return carrier or None

    def message_started(self, listener: ObservedListener, env: ObservedEnvelope) -> Any:
        if not self.traces:
            return None
        operation, subject = ("invoke_agent", "gen_ai.agent.name") if listener.agent else (
            "execute_tool", "gen_ai.tool.name")
        parent = propagate.extract(env.trace) if env.trace else None
        span = self._tracer.start_span(f"{operation} {listener.name}", context=parent,
                                       kind=SpanKind.INTERNAL, attributes={
            "gen_ai.operation.name": operation, subject: listener.name,
            "gen_ai.conversation.id": env.root, "handoff.pump.thread_id": env.thread_id,
            "handoff.pump.sender": env.from_id,
        })
        return span, context.attach(trace.set_span_in_context(span))

    def message_finished(self, token: Token | None, outcome: ObservedOutcome | None) -> None:
        if token is None:
            return
        span, attached = token
        if outcome is not None:
            span.set_attribute("handoff.pump.sent", len(outcome.envelopes))
            if outcome.errors:
                span.set_attribute("handoff.pump.errors", list(outcome.errors))
            if outcome.failure:
                span.set_attribute("error.type", outcome.failure)
                span.set_status(Status(StatusCode.ERROR, outcome.failure))
        context.detach(attached)
        span.end()


def _handoff_attributes(facts: HandoffFacts) -> dict[str, Any]:
    """The span attributes of a finished handoff: GenAI names where defined, else handoff.*;
    values that do not apply (and zero counts) are left out."""
    attributes: dict[str, Any] = {"gen_ai.agent.name": facts.sender,
                                  "handoff.outcome": facts.outcome}
    if facts.tool:
        attributes.update(TOOL_CALL)
    for field, key in _FACTS:
        value = getattr(facts, field)
        if value:
            attributes[key] = value
    return attributes


class _Instruments:
    """The metric table as OTel instruments: event metrics are counted, the rest observed."""

    def __init__(
        self, sources: catalog.Sources, provider: otel_metrics.MeterProvider | None
    ) -> None:
        meter = otel_metrics.get_meter(SCOPE, __version__, meter_provider=provider)
        route = catalog.ROUTE_SECONDS
        self._route = meter.create_histogram(
            route.otel, unit=route.unit, description=route.help,
            explicit_bucket_boundaries_advisory=list(catalog.ROUTE_BUCKETS))
        self._handoffs, self._moves, self._expired = (
            meter.create_counter(metric.otel, description=metric.help)
            for metric in (catalog.HANDOFFS, catalog.MOVES, catalog.EXPIRED))
        for metric in catalog.COLLECTED:
            create = (meter.create_observable_counter if metric.kind == "counter"
                      else meter.create_observable_gauge)
            create(metric.otel, callbacks=[_observe(sources, metric)], unit=metric.unit,
                   description=metric.help)

    def handoff(self, facts: HandoffFacts) -> None:
        layer = facts.layer or catalog.NONE
        self._handoffs.add(1, {"layer": layer, "outcome": facts.outcome,
                               "reason": facts.reason or catalog.NONE})
        self._route.record(facts.duration_s, {"layer": layer, "outcome": facts.outcome})

    def moved(self, record: HandoffRecord) -> None:
        move = record.history[-1]
        self._moves.add(1, {"from_state": _state(move.from_), "to_state": move.to.value,
                            "trigger": move.trigger})
        if move.trigger == "expire":
            failure = catalog.NONE if record.failure is None else record.failure.value
            self._expired.add(1, {"failure": failure})


def _state(status: HandoffStatus | None) -> str:
    return catalog.NONE if status is None else status.value


def _observe(sources: catalog.Sources, metric: catalog.Metric
             ) -> Callable[[otel_metrics.CallbackOptions], Iterable[otel_metrics.Observation]]:
    def observe(options: otel_metrics.CallbackOptions) -> Iterable[otel_metrics.Observation]:
        return [otel_metrics.Observation(value, dict(zip(metric.labels, labels, strict=True)))
                for labels, value in sources.read(metric)]

    return observe
