"""Prometheus metrics (extra `prometheus`): handoff and lifecycle counters and the route latency
histogram fed by the observer seam, plus a collector that reads records, reloads, the config
version and pumps at scrape time. `serve` exposes a registry over HTTP on localhost.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from engine.errors import MissingExtra
from engine.metrics import catalog
from engine.observer.seam import Observer

try:
    from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
    from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    from prometheus_client.core import Metric as Family
except ModuleNotFoundError as missing:
    raise MissingExtra("prometheus", missing.name or "prometheus_client") from missing

if TYPE_CHECKING:
    from collections.abc import Iterator
    from wsgiref.simple_server import WSGIServer

    from engine.observer.facts import HandoffFacts
    from engine.observer.watched import ObservedEngine, ObservedPump
    from engine.records.models import HandoffRecord


class PrometheusObserver(Observer):
    """Counts handoffs, moves and expiries into `registry` (a fresh `CollectorRegistry` unless
    given) and reports the watched engines' and pumps' state when scraped."""

    def __init__(self, *, registry: CollectorRegistry | None = None) -> None:
        self.registry = CollectorRegistry() if registry is None else registry
        self.sources = catalog.Sources()
        self._handoffs = _counter(catalog.HANDOFFS, self.registry)
        self._moves = _counter(catalog.MOVES, self.registry)
        self._expired = _counter(catalog.EXPIRED, self.registry)
        route = catalog.ROUTE_SECONDS
        self._route = Histogram(route.prometheus, route.help, route.labels,
                                registry=self.registry, buckets=catalog.ROUTE_BUCKETS)
        self._children: dict[tuple[Any, ...], Any] = {}
        self._handoff_children: dict[tuple[str | None, ...], tuple[Any, Any]] = {}
        """(layer, outcome, reason) -> its handoffs counter and route histogram: one lookup
        per handoff (label sets are few)."""
        self.registry.register(_Collector(self.sources))

    def attach(self, engine: ObservedEngine) -> None:
        self.sources.engines.add(engine)

    def pump_started(self, pump: ObservedPump) -> None:
        self.sources.pumps.add(pump)

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        key = (facts.layer, facts.outcome, facts.reason)
        children = self._handoff_children.get(key)
        if children is None:
            layer, outcome, reason = facts.layer or catalog.NONE, facts.outcome, facts.reason
            children = self._handoff_children[key] = (
                self._handoffs.labels(layer, outcome, reason or catalog.NONE),
                self._route.labels(layer, outcome))
        counted, timed = children
        counted.inc()
        timed.observe(facts.duration_s)

    def record_moved(self, record: HandoffRecord) -> None:
        move = record.history[-1]
        source = catalog.NONE if move.from_ is None else move.from_.value
        self._child(self._moves, source, move.to.value, move.trigger).inc()
        if move.trigger == "expire":
            failure = catalog.NONE if record.failure is None else record.failure.value
            self._child(self._expired, failure).inc()

    def _child(self, parent: Any, *labels: str) -> Any:
        """`parent.labels(*labels)`, cached (label sets are few: layers, reasons, states)."""
        key = (id(parent), *labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = parent.labels(*labels)
        return child


class _Collector:
    """Reads the collected metrics of `catalog.COLLECTED` from the sources at each scrape."""

    def __init__(self, sources: catalog.Sources) -> None:
        self.sources = sources

    def collect(self) -> Iterator[Family]:
        for metric in catalog.COLLECTED:
            family = _family(metric)
            for labels, value in self.sources.read(metric):
                family.add_metric(list(labels), value)
            yield family

    def describe(self) -> list[Family]:
        return [_family(metric) for metric in catalog.COLLECTED]


def _counter(metric: catalog.Metric, registry: CollectorRegistry) -> Counter:
    return Counter(metric.prometheus, metric.help, metric.labels, registry=registry)


def _family(metric: catalog.Metric) -> CounterMetricFamily | GaugeMetricFamily:
    kind = CounterMetricFamily if metric.kind == "counter" else GaugeMetricFamily
    return kind(metric.prometheus, metric.help, labels=list(metric.labels))


def serve(
    registry: CollectorRegistry, port: int, *, host: str = "127.0.0.1"
) -> tuple[WSGIServer, threading.Thread]:
    """Serve `registry` at `http://host:port/metrics` from a daemon thread (`port` 0 picks a
    free one: read it from `server.server_port`). Stop with `server.shutdown()`."""
    server, thread = start_http_server(port, addr=host, registry=registry)
    return server, thread
