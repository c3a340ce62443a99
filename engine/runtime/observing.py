"""How an `Engine` reports to its observers: the timed handoff wrapper, the facts of a handoff
and of a reload (from the reload hooks), the Prometheus registry. An engine builds one only once
something observes it, so nothing here runs, or imports a telemetry library, on the unobserved
path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.errors import UsageError
from engine.observer.facts import (
    MAX_ISSUES,
    HandoffFacts,
    ReloadFacts,
    redacted_issue,
    short_or_none,
)
from engine.observer.seam import Observer, Observers
from engine.runtime.handoff import CallerPolicy

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from engine.metrics.prometheus import PrometheusObserver
    from engine.redaction import Redactor
    from engine.runtime.call import HandoffCall
    from engine.runtime.engine import Engine
    from engine.runtime.handoff import HandoffOutcome
    from engine.runtime.hooks import Event
    from engine.runtime.reload import ReloadResult


class Observing:
    """The observers of one engine. Subscribes to the engine's reload hooks and makes its
    lifecycle manager report every move written."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.observers = Observers()
        self.prometheus: PrometheusObserver | None = None
        engine.hooks.add("config_reloaded", self._reloaded)
        engine.hooks.add("config_rejected", self._reloaded)

    def add(self, observer: Observer) -> None:
        self.observers.add(observer)
        observer.attach(self.engine)
        self.engine.manager.observer = self.observers

    def metrics(self, registry: CollectorRegistry | None) -> CollectorRegistry:
        """The Prometheus registry, created (into `registry`, else a fresh one) on first use."""
        if self.prometheus is None:
            from engine.metrics.prometheus import PrometheusObserver

            self.prometheus = PrometheusObserver(registry=registry)
            self.add(self.prometheus)
        elif registry is not None and registry is not self.prometheus.registry:
            raise UsageError("this engine already counts its metrics into another registry")
        return self.prometheus.registry

    def handoff(
        self, run: Callable[[HandoffCall], HandoffOutcome], call: HandoffCall
    ) -> HandoffOutcome:
        """`run(call)` (the engine's handoff) timed, between `handoff_started` and
        `handoff_finished`; an exception is reported, then re-raised."""
        session_id = None if call.session is None else call.session.session_id
        tool_call_id = call.tool_call_id
        observers = self.observers
        token = observers.handoff_started()
        started = time.perf_counter()
        try:
            outcome = run(call)
        except BaseException as error:
            took = time.perf_counter() - started
            observers.handoff_finished(token, HandoffFacts.failed(
                call.sender, error, session_id=session_id, tool=call.tool, duration_s=took,
                tool_call_id=tool_call_id))
            raise
        took = time.perf_counter() - started
        observers.handoff_finished(token, handoff_facts(
            outcome, session_id=session_id, duration_s=took, tool_call_id=tool_call_id))
        return outcome

    def _reloaded(self, event: Event) -> None:
        snapshot = event.data["snapshot"]  # the new one when applied, the one still serving if not
        facts = reload_facts(event.data["result"], config=snapshot.name,
                             redactor=CallerPolicy.of(snapshot).redactor)
        self.observers.reload_finished(self.observers.reload_started(facts), facts)


def handoff_facts(
    outcome: HandoffOutcome, *, session_id: str | None, duration_s: float,
    tool_call_id: object = None,
) -> HandoffFacts:
    """What observers are told of a handoff that returned `outcome`."""
    decision, record = outcome.decision, outcome.record
    kind = _kind(outcome)
    refused = kind == "refused"
    response = record.response
    layer, examples = decision.layer, decision.examples
    # Positional, in HandoffFacts' field order (keywords cost several times more); the seam tests
    # compare whole facts built by keyword, so a field added out of place fails them.
    return HandoffFacts._make((
        decision.request.sender,  # sender
        kind,  # outcome
        duration_s,
        record.request.to_agent or None,  # target
        None if layer is None else layer.value,  # layer
        decision.rule,
        outcome.reason if refused else None,  # reason
        response.reason if refused and response is not None else None,  # refusal
        decision.request.tool,  # tool
        session_id,
        record.record_id,
        decision.config_version,
        len(decision.matched_keywords),  # keywords
        0 if examples is None else len(examples.nearest),  # examples
        None,  # error
        short_or_none(tool_call_id),
    ))


def _kind(outcome: HandoffOutcome) -> str:
    """`routed`, `stayed` (no tool was called and the words routed nowhere) or `refused`."""
    if outcome.target is not None:
        return "routed"
    if outcome.reason == "no_route" and outcome.decision.request.tool is None:
        return "stayed"
    return "refused"


def reload_facts(result: ReloadResult, *, config: str, redactor: Redactor) -> ReloadFacts:
    """What observers are told of a reload that was applied or rejected."""
    return ReloadFacts(
        outcome=result.outcome,
        config=config,
        version=result.version,
        previous_version=result.previous_version,
        duration_s=result.duration_s,
        issue_count=len(result.issues),
        issues=tuple(redacted_issue(i, redactor) for i in result.issues[:MAX_ISSUES]),
    )
