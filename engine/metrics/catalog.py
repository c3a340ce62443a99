"""The metrics every backend exports, declared once as data (names, kind, labels, help), and the
values read at collection time from the engines and pumps being watched. The Prometheus and
OpenTelemetry observers build their instruments from this table; it imports neither.
"""

from __future__ import annotations

import logging
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.records.models import HandoffStatus
from engine.records.store import RecordQuery

if TYPE_CHECKING:
    from engine.observer.watched import ObservedEngine, ObservedPump

log = logging.getLogger("engine.observability")

Sample = tuple[tuple[str, ...], float]
"""Label values (in the metric's label order) and a value."""

LIVE = (HandoffStatus.pending, HandoffStatus.accepted, HandoffStatus.in_progress)
NONE = "none"
"""The label value for a layer, reason or state that does not apply."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric: its Prometheus name (a counter gains `_total`), its OpenTelemetry name,
    `kind` (`counter`, `histogram` or `gauge`), help text, label names and unit."""

    prometheus: str
    otel: str
    kind: str
    help: str
    labels: tuple[str, ...] = ()
    unit: str = ""


HANDOFFS = Metric(
    "handoffs", "handoffs", "counter",
    "Engine.handoff calls by routing layer, outcome (routed, stayed, refused, error) and "
    "refusal reason.",
    ("layer", "outcome", "reason"))
ROUTE_SECONDS = Metric(
    "handoff_route_duration_seconds", "handoff.route.duration", "histogram",
    "Time Engine.handoff took: input checks, routing, policy, payload check and record.",
    ("layer", "outcome"), "s")
ROUTE_BUCKETS = (0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                 0.05, 0.1, 0.25, 1.0)
"""Route latency buckets in seconds: a trigger hit takes tens of microseconds, a SQLite commit
with fsync a few milliseconds."""
MOVES = Metric(
    "handoff_lifecycle_moves", "handoff.lifecycle.moves", "counter",
    "Lifecycle moves written, by transition.", ("from_state", "to_state", "trigger"))
EXPIRED = Metric(
    "handoff_records_expired", "handoff.records.expired", "counter",
    "Live handoffs failed by expiry, by failure (timeout, deadline).", ("failure",))
RECORDS = Metric(
    "handoff_records", "handoff.records", "gauge",
    "Live handoff records in the store, by status (pending, accepted, in_progress).",
    ("status",))
RELOAD_ATTEMPTS = Metric(
    "handoff_config_reload_attempts", "handoff.config.reload.attempts", "counter",
    "Config reloads attempted (applied, unchanged or rejected).", ("config",))
RELOAD_SUCCESSES = Metric(
    "handoff_config_reload_successes", "handoff.config.reload.successes", "counter",
    "Config reloads that left the files' config serving (applied or unchanged).", ("config",))
RELOAD_FAILURES = Metric(
    "handoff_config_reload_failures", "handoff.config.reload.failures", "counter",
    "Config reloads rejected: the last good config kept serving.", ("config",))
LAST_RELOAD_OK = Metric(
    "handoff_config_last_reload_successful", "handoff.config.last_reload.successful", "gauge",
    "1 if the last reload was not rejected, else 0.", ("config",))
LAST_SUCCESS = Metric(
    "handoff_config_last_reload_success_timestamp_seconds",
    "handoff.config.last_reload.success_time", "gauge",
    "Unix time of the last successful load or reload.", ("config",), "s")
CONFIG_INFO = Metric(
    "handoff_config_info", "handoff.config.info", "gauge",
    "The config version serving now (value always 1).", ("config", "version"))
PUMP_QUEUE = Metric(
    "handoff_pump_queue_depth", "handoff.pump.queue.depth", "gauge",
    "Messages waiting in each listener's queue.", ("listener",))
PUMP_IN_FLIGHT = Metric(
    "handoff_pump_in_flight", "handoff.pump.in_flight", "gauge", "Messages queued or running.")
PUMP_DELIVERED = Metric(
    "handoff_pump_delivered", "handoff.pump.delivered", "counter",
    "Messages put on a listener's queue.")
PUMP_HANDLED = Metric(
    "handoff_pump_handled", "handoff.pump.handled", "counter", "Handler calls finished.")
PUMP_ERRORS = Metric(
    "handoff_pump_errors", "handoff.pump.errors", "counter",
    "SystemErrors the pump raised, by code.", ("code",))
PUMP_DROPPED = Metric(
    "handoff_pump_dropped", "handoff.pump.dropped", "counter",
    "Messages not delivered, by reason.", ("reason",))


class Sources:
    """The engines and pumps an observer reads at collection time (held weakly: a collected
    engine or pump just stops being reported)."""

    def __init__(self) -> None:
        self.engines: weakref.WeakSet[ObservedEngine] = weakref.WeakSet()
        self.pumps: weakref.WeakSet[ObservedPump] = weakref.WeakSet()

    def read(self, metric: Metric) -> list[Sample]:
        """The current samples of a collected metric (see `COLLECTED`)."""
        return list(_READERS[metric](self))


def _records(sources: Sources) -> Iterator[Sample]:
    counts: Counter[str] = Counter({status.value: 0 for status in LIVE})
    stores = {id(engine.store): engine.store for engine in list(sources.engines)}
    for store in stores.values():
        try:
            for status in LIVE:
                counts[status.value] += store.count(RecordQuery(status=status))
        except Exception:  # a closed or unreachable store must not fail a whole scrape
            log.warning("records gauge: cannot count the records of %s", store, exc_info=True)
    for name, count in counts.items():
        yield (name,), count


def _per_config(value: Callable[[ObservedEngine], float]) -> Callable[[Sources], Iterator[Sample]]:
    def read(sources: Sources) -> Iterator[Sample]:
        for engine in list(sources.engines):
            yield (engine.snapshot.name,), value(engine)

    return read


def _config_info(sources: Sources) -> Iterator[Sample]:
    for engine in list(sources.engines):
        snapshot = engine.snapshot
        yield (snapshot.name, snapshot.version), 1


def _summed(by: Callable[[ObservedPump], Iterable[tuple[str, float]]]
            ) -> Callable[[Sources], Iterator[Sample]]:
    """Summed over every pump: one sample per label value (none for no labels)."""
    def read(sources: Sources) -> Iterator[Sample]:
        totals: dict[str, float] = {}
        for pump in list(sources.pumps):
            for label, value in by(pump):
                totals[label] = totals.get(label, 0) + value
        for label, total in totals.items():
            yield ((label,) if label else ()), total

    return read


_READERS: dict[Metric, Callable[[Sources], Iterator[Sample]]] = {
    RECORDS: _records,
    RELOAD_ATTEMPTS: _per_config(lambda e: (s := e.reloader.stats).applied + s.unchanged
                                 + s.rejected),
    RELOAD_SUCCESSES: _per_config(lambda e: (s := e.reloader.stats).applied + s.unchanged),
    RELOAD_FAILURES: _per_config(lambda e: e.reloader.stats.rejected),
    LAST_RELOAD_OK: _per_config(lambda e: 1.0 if e.reloader.stats.last_ok else 0.0),
    LAST_SUCCESS: _per_config(lambda e: e.reloader.stats.last_success_at or 0.0),
    CONFIG_INFO: _config_info,
    PUMP_QUEUE: _summed(lambda p: p.queue_depths().items()),
    PUMP_IN_FLIGHT: _summed(lambda p: [("", p.stats().in_flight)]),
    PUMP_DELIVERED: _summed(lambda p: [("", p.stats().delivered)]),
    PUMP_HANDLED: _summed(lambda p: [("", p.stats().handled)]),
    PUMP_ERRORS: _summed(lambda p: p.stats().errors.items()),
    PUMP_DROPPED: _summed(lambda p: p.stats().dropped.items()),
}

EVENTS = (HANDOFFS, ROUTE_SECONDS, MOVES, EXPIRED)
"""Metrics counted as things happen (through the observer seam)."""

COLLECTED = tuple(_READERS)
"""Metrics read from engines and pumps at collection time."""
