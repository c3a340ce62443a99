"""Prometheus: each scenario moves exactly the expected samples of a fresh registry, the state
metrics (records, reloads, config version, pumps) are read at scrape time, and `serve` answers
a real HTTP request on localhost."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

import pytest

from tests.extras import need
from tests.patience import HANG_S

need("prometheus_client", extra="prometheus", group="observability")

from prometheus_client import CollectorRegistry, generate_latest  # noqa: E402

from engine import Engine, UsageError  # noqa: E402
from engine.observability.prometheus import serve  # noqa: E402
from tests.unit.observability.scenarios import (  # noqa: E402
    bounce,
    refused,
    reject_reload,
    routed,
    run_chain,
)

CONFIG = {"config": "banking-concierge"}


def samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the registry except the `_created` timestamps and histogram buckets."""
    found = {}
    for family in registry.collect():
        for sample in family.samples:
            if not sample.name.endswith(("_created", "_bucket")):
                found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def delta(before: dict[tuple[str, tuple[tuple[str, str], ...]], float],
          after: dict[tuple[str, tuple[tuple[str, str], ...]], float],
          ) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The samples that changed (or appeared), with their change; durations as 'moved'."""
    changed = {}
    for key, value in after.items():
        step = value - before.get(key, 0.0)
        if step:
            changed[key] = -1.0 if key[0].endswith("_sum") else step
    return changed


def test_a_routed_handoff_counts_once_and_shows_as_pending(engine: Engine) -> None:
    registry = engine.metrics()
    before = samples(registry)
    routed(engine)
    assert delta(before, samples(registry)) == {
        ("handoffs_total", (("layer", "rule"), ("outcome", "routed"), ("reason", "none"))): 1,
        ("handoff_route_duration_seconds_count", (("layer", "rule"), ("outcome", "routed"))): 1,
        ("handoff_route_duration_seconds_sum", (("layer", "rule"), ("outcome", "routed"))): -1,
        ("handoff_records", (("status", "pending"),)): 1,
    }


def test_a_loop_refusal_counts_its_reason_and_the_rejected_move(engine: Engine) -> None:
    session, _ = bounce(engine)
    registry = engine.metrics()
    before = samples(registry)
    refused(engine, session)
    key = (("layer", "trigger"), ("outcome", "refused"))
    assert delta(before, samples(registry)) == {
        ("handoffs_total", (*key, ("reason", "loop"))): 1,
        ("handoff_route_duration_seconds_count", key): 1,
        ("handoff_route_duration_seconds_sum", key): -1,
        ("handoff_lifecycle_moves_total",
         (("from_state", "pending"), ("to_state", "rejected"), ("trigger", "reject"))): 1,
    }


def test_reload_metrics_follow_a_rejected_then_a_fixed_reload(
    folder: Path, engine: Engine
) -> None:
    registry = engine.metrics()
    serving = engine.version
    started_at = registry.get_sample_value(
        "handoff_config_last_reload_success_timestamp_seconds", CONFIG)
    before = samples(registry)
    reject_reload(folder, engine)
    assert delta(before, samples(registry)) == {
        ("handoff_config_reload_attempts_total", (("config", "banking-concierge"),)): 1,
        ("handoff_config_reload_failures_total", (("config", "banking-concierge"),)): 1,
        ("handoff_config_last_reload_successful", (("config", "banking-concierge"),)): -1,
    }
    assert registry.get_sample_value(
        "handoff_config_info", {**CONFIG, "version": serving}) == 1
    routing = folder / "routing.yaml"
    routing.write_text(routing.read_text(encoding="utf-8").replace("priority: high",
                                                                   "priority: 91"))
    assert engine.reload().outcome == "applied"
    value = registry.get_sample_value
    assert value("handoff_config_reload_successes_total", CONFIG) == 1
    assert value("handoff_config_last_reload_successful", CONFIG) == 1
    assert value("handoff_config_last_reload_success_timestamp_seconds", CONFIG) > started_at
    assert value("handoff_config_info", {**CONFIG, "version": serving}) is None
    assert value("handoff_config_info", {**CONFIG, "version": engine.version}) == 1


def test_a_pump_chain_across_three_listeners_counts_every_hop(engine: Engine) -> None:
    registry = engine.metrics()
    before = samples(registry)
    pump = asyncio.run(run_chain(engine))  # held: a pump is reported while it exists
    moves = "handoff_lifecycle_moves_total"
    assert delta(before, samples(registry)) == {
        ("handoff_pump_delivered_total", ()): 5,
        ("handoff_pump_handled_total", ()): 5,
        (moves, (("from_state", "pending"), ("to_state", "accepted"), ("trigger", "accept"))): 2,
        (moves, (("from_state", "accepted"), ("to_state", "in_progress"),
                 ("trigger", "start"))): 2,
        (moves, (("from_state", "in_progress"), ("to_state", "completed"),
                 ("trigger", "complete"))): 2,
    }
    after = samples(registry)
    assert [after[("handoff_pump_queue_depth", (("listener", name),))]
            for name in ("desk", "triage", "specialist")] == [0, 0, 0]
    assert after[("handoff_pump_in_flight", ())] == 0
    assert pump.stats().delivered == 5


def test_an_expiry_counts_as_expired_and_as_a_move(engine: Engine) -> None:
    registry = engine.metrics()
    outcome = routed(engine)
    before = samples(registry)
    engine.manager.expire_overdue(now=outcome.record.created_at.replace(year=2100))
    assert delta(before, samples(registry)) == {
        ("handoff_records_expired_total", (("failure", "timeout"),)): 1,
        ("handoff_lifecycle_moves_total",
         (("from_state", "pending"), ("to_state", "failed"), ("trigger", "expire"))): 1,
        ("handoff_records", (("status", "pending"),)): -1,
    }


def test_metrics_returns_one_registry_per_engine(engine: Engine) -> None:
    mine = CollectorRegistry()
    assert engine.metrics(registry=mine) is mine
    assert engine.metrics() is mine
    with pytest.raises(UsageError, match="another registry"):
        engine.metrics(registry=CollectorRegistry())


def test_a_closed_store_does_not_fail_a_scrape(folder: Path, tmp_path: Path) -> None:
    closed = Engine(folder, store=tmp_path / "records.sqlite", sweep_interval_s=None)
    registry = closed.metrics()
    closed.close()
    text = generate_latest(registry).decode()
    assert 'handoff_config_info{config="banking-concierge"' in text
    assert 'handoff_records{status="pending"} 0.0' in text


def test_serve_answers_on_localhost(engine: Engine) -> None:
    registry = engine.metrics()  # counting starts here
    routed(engine)
    server, thread = serve(registry, 0)
    try:
        assert server.server_address[0] == "127.0.0.1"
        url = f"http://127.0.0.1:{server.server_port}/metrics"
        with urllib.request.urlopen(url, timeout=HANG_S) as response:
            body = response.read().decode()
        assert 'handoffs_total{layer="rule",outcome="routed",reason="none"} 1.0' in body
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
