"""How an `Engine` reports to its observers: the timed handoff wrapper, reload facts from the
reload hooks, the Prometheus registry. An engine builds one only once something observes it, so
nothing here runs, or imports a telemetry library, on the unobserved path.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.errors import UsageError
from engine.observer.facts import HandoffFacts, ReloadFacts
from engine.observer.seam import Observer, Observers
from engine.runtime.handoff import CallerPolicy

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from engine.metrics.prometheus import PrometheusObserver
    from engine.runtime.call import HandoffCall
    from engine.runtime.engine import Engine
    from engine.runtime.handoff import HandoffOutcome
    from engine.runtime.hooks import Event


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
        observers.handoff_finished(token, HandoffFacts.of(
            outcome, session_id=session_id, duration_s=took, tool_call_id=tool_call_id))
        return outcome

    def _reloaded(self, event: Event) -> None:
        engine = self.engine
        snapshot = engine.snapshot  # the new one when applied, the one still serving if not
        facts = ReloadFacts.of(event.data["result"], config=snapshot.config.engine.name,
                               redactor=CallerPolicy.of(snapshot).redactor)
        self.observers.reload_finished(self.observers.reload_started(facts), facts)
