"""RouteDecision: immutable, JSON-serializable, carrying the config version."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from engine.records.models import HandoffRequest
from engine.routing import Candidate, Layer, Reason, RouteDecision, Router, RouteRequest
from engine.routing.snapshot import Snapshot


def test_to_dict_is_plain_json(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "my stolen card", priority=7))
    document = json.loads(json.dumps(decision.to_dict()))
    assert document["target"] == "fraud"
    assert document["layer"] == "keyword"
    assert document["config_version"] == "test-1"
    assert document["candidates"][1] == {
        "agent": "cards", "layer": "keyword", "score": 1, "dropped": "outranked", "rule": None,
    }
    assert document["request"]["priority"] == 7


def test_decisions_are_immutable(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "card"))
    with pytest.raises(AttributeError):
        decision.target = "cards"  # type: ignore[misc]


def test_seed_handoff_requests_convert_without_forcing_the_target(bank: Snapshot) -> None:
    seed = HandoffRequest(
        from_agent="concierge", to_agent="invest", task_description="my visa was stolen",
        context={"tier": "gold"}, priority=9,
        deadline=datetime(2026, 1, 1, tzinfo=timezone.utc),
    )
    request = RouteRequest.from_handoff(seed)
    assert (request.sender, request.priority, dict(request.context)) == (
        "concierge", 9, {"tier": "gold"}
    )
    assert Router(bank).route(request).target == "fraud"


def test_a_successful_decision_returns_its_target(bank: Snapshot) -> None:
    request = RouteRequest("concierge", "x", tool="handoff_invest")
    decision = Router(bank).route(request)
    assert decision.routed
    assert decision.raise_for_rejection() == "invest"
    assert type(decision) is RouteDecision
    assert type(decision.candidates[0]) is Candidate
    assert decision == RouteDecision(
        "invest", Layer.trigger, None, (), (), (Candidate("invest", Layer.trigger),), None,
        decision.detail, "test-1", request,
    )


def test_keyword_candidates_are_an_immutable_sequence(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "my stolen visa"))
    candidates = decision.candidates
    assert len(candidates) == 2
    assert candidates[1:] == (("cards", Layer.keyword, 1, Reason.outranked, None),)
    assert candidates == [c for c in candidates]
    assert hash(candidates) == hash(tuple(candidates))
    assert "outranked" in repr(candidates)
    with pytest.raises(TypeError):
        candidates[0] = candidates[1]  # type: ignore[index]


def test_decision_fields_keep_their_order() -> None:
    # The runtime builds refusals positionally; reordering these fields would break it.
    assert RouteDecision._fields == (
        "target", "layer", "rule", "matched_keywords", "matched_capabilities", "candidates",
        "rejection", "detail", "config_version", "request", "dropped_requests", "examples",
    )
