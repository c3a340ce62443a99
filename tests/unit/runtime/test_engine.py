"""Engine facade on the banking config: handoff = route + policy + audited record."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.errors import UsageError
from engine.lifecycle import HandoffStatus
from engine.routing import Layer, Reason
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import SQLiteStore


@pytest.fixture
def engine(config_folder: Any) -> Any:
    with Engine(config_folder.path) as engine:
        yield engine


@pytest.mark.parametrize(
    ("sender", "text", "tool", "target", "layer", "rule"),
    [
        ("concierge", "please help", "handoff_fraud_agent", "fraud_agent", Layer.trigger, None),
        ("concierge", "my card was stolen", None, "fraud_agent", Layer.rule,
         "lost-or-stolen-card"),
        ("concierge", "I'd like to roll over my 401k into an ira", None, "investment_advisor",
         Layer.keyword, None),
        ("fraud_agent", "thanks, that's all", None, "concierge", Layer.fallback, None),
    ],
    ids=["trigger", "rule", "keyword", "fallback"],
)
def test_handoff_by_every_layer_creates_a_pending_record(
    engine: Engine, sender: str, text: str, tool: str | None, target: str, layer: Layer,
    rule: str | None,
) -> None:
    outcome = engine.handoff(text, sender=sender, tool=tool)
    assert (outcome.target, outcome.decision.layer, outcome.decision.rule) == (target, layer, rule)
    record = engine.manager.get(outcome.record.record_id)
    assert record.status is HandoffStatus.pending
    assert (record.request.from_agent, record.request.to_agent) == (sender, target)
    assert record.config_version == engine.version
    assert outcome.accepted_by_policy


def test_refusal_is_audited_as_a_rejected_record_with_the_typed_reason(engine: Engine) -> None:
    outcome = engine.handoff("compare cards", sender="fraud_agent",
                             tool="handoff_card_recommendation")
    assert outcome.target is None and outcome.decision.rejection is Reason.not_allowed
    record = engine.manager.get(outcome.record.record_id)
    assert record.status is HandoffStatus.rejected
    assert record.response is not None and not record.response.accepted
    assert record.response.reason.startswith("not_allowed: ")
    assert record.request.to_agent == "card_recommendation"
    assert outcome.system_vars == {}


def test_session_hop_and_return_to_previous(engine: Engine) -> None:
    session = engine.session(system_vars={"client_id": "c-1"})
    assert session.active_agent == "concierge"
    first = engine.handoff("someone used my card", session=session, tool="handoff_fraud_agent",
                           context={"card_last4": "1234", "mood": "upset"})
    assert session.active_agent == "fraud_agent" and session.previous_agent == "concierge"
    assert first.system_vars["greeting"].startswith("You're through to the fraud team")
    assert first.system_vars["handoff_context"] == {"card_last4": "1234"}  # fraud carries these
    back = engine.handoff("all sorted", session=session, tool="handoff_concierge")
    assert back.target == "concierge" and back.decision.layer is Layer.trigger
    assert session.path == ("concierge", "fraud_agent", "concierge")
    assert session.previous_agent is None
    assert session.history == (("concierge", "fraud_agent"), ("fraud_agent", "concierge"))
    assert [hop.record_id for hop in session.hops] == [
        first.record.record_id, back.record.record_id
    ]
    assert session.system_vars["client_id"] == "c-1"


def test_session_overrides_and_removals_apply_at_once(engine: Engine) -> None:
    session = engine.session()
    session.update_handoff_map("handoff_fraud_agent", "compliance_desk")
    assert engine.handoff("x", session=session, tool="handoff_fraud_agent").target == (
        "compliance_desk"
    )
    other = engine.session()
    assert other.remove_handoff("handoff_fraud_agent")
    refused = engine.handoff("x", session=other, tool="handoff_fraud_agent")
    assert refused.decision.rejection is Reason.unknown_target
    assert refused.record.status is HandoffStatus.rejected
    assert other.active_agent == "concierge"


def test_loop_guard_reads_the_session_history(engine: Engine) -> None:
    session = engine.session()
    outcomes = []
    for _ in range(4):
        outcomes.append(engine.handoff("fraud", session=session, tool="handoff_fraud_agent"))
        outcomes.append(engine.handoff("done", session=session, tool="handoff_concierge"))
    refused = [o for o in outcomes if o.target is None]
    assert refused and refused[0].decision.rejection is Reason.loop


def test_event_hooks_for_created_and_moved(engine: Engine) -> None:
    events: list[tuple[str, str]] = []
    engine.on("handoff_created", lambda e: events.append((e.name, e.data["record"].status)))
    engine.on("handoff_moved", lambda e: events.append((e.name, e.data["record"].status)))
    record = engine.handoff("stolen card", sender="concierge").record
    engine.accept(record.record_id)
    engine.start(record.record_id)
    done = engine.complete(record.record_id, {"case": "F-1"})
    assert done.status is HandoffStatus.completed and done.result == {"case": "F-1"}
    assert [status for _, status in events] == [
        HandoffStatus.pending, HandoffStatus.accepted, HandoffStatus.in_progress,
        HandoffStatus.completed,
    ]
    assert events[0][0] == "handoff_created" and events[-1][0] == "handoff_moved"
    with pytest.raises(ValueError):
        engine.on("no_such_event", lambda e: None)


def test_lifecycle_passthroughs(engine: Engine) -> None:
    ids = [engine.handoff("stolen card", sender="concierge").record.record_id for _ in range(3)]
    assert engine.reject(ids[0], "busy").status is HandoffStatus.rejected
    engine.accept(ids[1])
    failed = engine.fail(ids[1], "line dropped")
    cancelled = engine.cancel(ids[2], "caller hung up")
    assert failed.status is cancelled.status is HandoffStatus.failed
    assert cancelled.failure is not None and failed.failure is not None
    assert cancelled.failure != failed.failure
    with pytest.raises(ValueError):
        engine.accept(ids[0])  # illegal move, seed parity: a ValueError


def test_sqlite_store_path_survives_reopening(config_folder: Any, tmp_path: Path) -> None:
    path = tmp_path / "handoffs.sqlite"
    with Engine(config_folder.path, store=path) as engine:
        record = engine.handoff("stolen card", sender="concierge").record
        engine.accept(record.record_id)
    assert path.is_file()
    reopened = SQLiteStore(path)
    try:
        stored = reopened.get(record.record_id)
        assert stored.status is HandoffStatus.accepted
        assert stored.config_version == record.config_version
    finally:
        reopened.close()


def test_in_flight_handoffs_keep_their_config_version(engine: Engine, config_folder: Any) -> None:
    before = engine.version
    in_flight = engine.handoff(config_folder.shopping, sender="concierge").record
    assert in_flight.request.to_agent == "card_recommendation"
    config_folder.write_routing("investment_advisor")
    assert engine.reload().outcome == "applied"
    after = engine.handoff(config_folder.shopping, sender="concierge").record
    assert (after.config_version, after.request.to_agent) == (engine.version, "investment_advisor")
    moved = engine.accept(in_flight.record_id)
    assert moved.config_version == before != engine.version
    assert engine.manager.get(in_flight.record_id).request.to_agent == "card_recommendation"


def test_pending_timeout_follows_a_reload_of_policies(engine: Engine, config_folder: Any) -> None:
    assert engine.manager.pending_timeout == timedelta(seconds=20)
    record = engine.handoff("stolen card", sender="concierge").record
    root = config_folder.path / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(
        "pending_timeout_s: 20", "pending_timeout_s: 5"), encoding="utf-8")
    assert engine.reload().outcome == "applied"
    assert engine.manager.pending_timeout == timedelta(seconds=5)
    assert engine.manager.expire_overdue(now=record.created_at + timedelta(seconds=4)) == []
    expired = engine.manager.expire_overdue(now=record.created_at + timedelta(seconds=6))
    assert [r.record_id for r in expired] == [record.record_id]


def test_rejected_reload_is_an_event_and_keeps_serving(engine: Engine, config_folder: Any) -> None:
    events: list[Event] = []
    engine.on("config_rejected", events.append)
    before = engine.snapshot
    config_folder.break_routing("schema")
    result = engine.reload()
    assert result.outcome == "rejected" and engine.snapshot is before
    assert events and events[0].data["result"] is result
    assert events[0].data["snapshot"] is before  # the one still serving
    assert engine.handoff("stolen card", sender="concierge").target == "fraud_agent"


def test_an_applied_reload_event_carries_the_snapshot_it_swapped_in(
    engine: Engine, config_folder: Any
) -> None:
    events: list[Event] = []
    engine.on("config_reloaded", events.append)
    root = config_folder.path / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(
        "pending_timeout_s: 20", "pending_timeout_s: 5"), encoding="utf-8")
    result = engine.reload()
    assert result.outcome == "applied"
    assert [e.data["snapshot"] for e in events] == [engine.snapshot]
    assert events[0].data["snapshot"].version == result.version


def test_usage_errors(engine: Engine) -> None:
    with pytest.raises(UsageError):
        engine.handoff("no sender")
    with pytest.raises(UsageError):
        engine.session(active_agent="nobody")


def test_close_stops_a_watcher_thread_the_caller_left_running(config_folder: Any) -> None:
    engine = Engine(config_folder.path)
    engine.watcher().start()
    assert any(t.name == "handoff-config-watch" for t in threading.enumerate())
    engine.close()
    assert not any(t.name == "handoff-config-watch" for t in threading.enumerate())


def test_a_routed_hop_is_kept_when_a_reload_removed_its_target_meanwhile(engine: Engine) -> None:
    session = engine.session()
    outcome = engine.handoff("my card was stolen", session=session)
    assert outcome.target == "fraud_agent"
    # the router checked the target on its snapshot; the session records the hop regardless
    hop = session.record_hop("no_longer_declared", routed=True)
    assert session.active_agent == "no_longer_declared" and hop.source == "fraud_agent"
    with pytest.raises(UsageError, match="Unknown agent: "):
        session.record_hop("still_unknown")
