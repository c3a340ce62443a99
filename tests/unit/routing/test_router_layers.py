"""Each routing layer on its own: trigger, rules, keywords, fallback, and their order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.routing import Layer, Reason, Router, RouteRequest
from engine.routing.snapshot import Snapshot

Build = Callable[..., Snapshot]
Parts = tuple[list[dict[str, Any]], dict[str, Any]]


def test_trigger_wins_over_every_other_layer(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "stocks", tool="handoff_cards"))
    assert (decision.target, decision.layer) == ("cards", Layer.trigger)
    assert decision.candidates[0].agent == "cards"


def test_explicit_target_is_routed_by_the_trigger_layer(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "hi", target="invest"))
    assert (decision.target, decision.layer) == ("invest", Layer.trigger)


def test_unknown_tool_falls_through_to_lower_layers(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "stocks", tool="lookup_balance"))
    assert (decision.target, decision.layer) == ("invest", Layer.keyword)


@pytest.fixture
def with_rules(build: Build, bank_parts: Parts) -> Callable[[list[dict[str, Any]]], Snapshot]:
    agents, capabilities = bank_parts

    def make(rules: list[dict[str, Any]]) -> Snapshot:
        return build(agents, capabilities=capabilities, rules=rules, fallback="concierge")

    return make


def test_rules_run_by_priority_then_declaration_order(with_rules: Callable[..., Snapshot]) -> None:
    snapshot = with_rules([
        {"id": "low", "to": "fraud", "priority": 1},
        {"id": "first-high", "to": "cards", "priority": 9},
        {"id": "second-high", "to": "invest", "priority": 9},
    ])
    assert [rule.id for rule in snapshot.rules] == ["first-high", "second-high", "low"]
    decision = Router(snapshot).route(RouteRequest("concierge", "hello"))
    assert (decision.target, decision.layer, decision.rule) == ("cards", Layer.rule, "first-high")


CONDITIONS: list[tuple[dict[str, Any], RouteRequest, bool]] = [
    ({"tool": ["lookup"]}, RouteRequest("concierge", "x", tool="lookup"), True),
    ({"tool": ["lookup"]}, RouteRequest("concierge", "x", tool="other"), False),
    ({"from": ["concierge"]}, RouteRequest("concierge", "x"), True),
    ({"from": ["fraud"]}, RouteRequest("concierge", "x"), False),
    ({"keywords": {"any": ["lost", "stolen"]}}, RouteRequest("concierge", "Lost it"), True),
    ({"keywords": {"any": ["lost"]}}, RouteRequest("concierge", "lostwithiel"), False),
    ({"keywords": {"all": ["card", "blocked"]}}, RouteRequest("concierge", "card blocked"), True),
    ({"keywords": {"all": ["card", "blocked"]}}, RouteRequest("concierge", "card ok"), False),
    ({"keywords": {"all": ["new card"]}}, RouteRequest("concierge", "a new card"), True),
    # phrase_window 3 by default: a phrase's words in any order within three words
    ({"keywords": {"all": ["new card"]}}, RouteRequest("concierge", "card new"), True),
    ({"keywords": {"all": ["new card"]}}, RouteRequest("concierge", "card that is new"), False),
    ({"capabilities": ["fraud"]}, RouteRequest("concierge", "a scam"), True),
    ({"capabilities": ["fraud"]}, RouteRequest("concierge", "x", capabilities=("fraud",)), True),
    ({"capabilities": ["fraud", "cards"]}, RouteRequest("concierge", "a scam"), False),
    ({"priority": {"min": 8}}, RouteRequest("concierge", "x", priority=9), True),
    ({"priority": {"min": 8}}, RouteRequest("concierge", "x", priority=7), False),
    ({"priority": {"max": 3}}, RouteRequest("concierge", "x", priority=4), False),
    ({"context": {"tier": "gold"}}, RouteRequest("fraud", "x", context={"tier": "gold"}), True),
    ({"context": {"tier": "gold"}}, RouteRequest("fraud", "x", context={"tier": "blue"}), False),
    ({"context": {"n": 3}}, RouteRequest("fraud", "x", context={"n": 3}), True),
    ({"context": {"n": 3}}, RouteRequest("fraud", "x", context={"n": 3.0}), True),
    ({"context": {"vip": True}}, RouteRequest("fraud", "x", context={"vip": 1}), False),
    ({"context": {"n": 1}}, RouteRequest("fraud", "x", context={"n": True}), False),
    ({"context": {"tier": "gold"}}, RouteRequest("concierge", "x"), False),
    ({"from": ["concierge"], "priority": {"min": 5}}, RouteRequest("concierge", "x"), True),
    ({"from": ["concierge"], "priority": {"min": 6}}, RouteRequest("concierge", "x"), False),
]


@pytest.mark.parametrize(("when", "request_", "expected"), CONDITIONS)
def test_every_given_condition_must_hold(
    with_rules: Callable[..., Snapshot], when: dict[str, Any], request_: RouteRequest,
    expected: bool,
) -> None:
    snapshot = with_rules([{"id": "r", "to": "invest", "when": when}])
    decision = Router(snapshot).route(request_)
    assert (decision.rule == "r") is expected


def test_rule_decision_records_the_matched_keywords(with_rules: Callable[..., Snapshot]) -> None:
    snapshot = with_rules([
        {"id": "r", "to": "invest",
         "when": {"keywords": {"all": ["wire"], "any": ["abroad", "x"]}}},
    ])
    decision = Router(snapshot).route(RouteRequest("concierge", "wire money abroad"))
    assert decision.matched_keywords == ("wire", "abroad")


def test_keywords_score_by_matched_capabilities(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "someone used my stolen card"))
    assert (decision.target, decision.layer) == ("fraud", Layer.keyword)
    assert decision.matched_capabilities == ("fraud", "cards")
    assert decision.matched_keywords == ("stolen", "card")
    scores = [(c.agent, c.score, c.dropped) for c in decision.candidates]
    assert scores == [("fraud", 2, None), ("cards", 1, Reason.outranked)]


def test_keyword_ties_go_to_the_earlier_declared_agent(build: Build) -> None:
    agents = [
        {"name": "hub"},
        {"name": "zeta", "capabilities": ["cards"]},
        {"name": "alpha", "capabilities": ["cards"]},
    ]
    snapshot = build(agents, capabilities={"cards": ["card"]})
    for _ in range(3):
        decision = Router(snapshot).route(RouteRequest("hub", "card"))
        assert decision.target == "zeta"
        assert [c.agent for c in decision.candidates] == ["zeta", "alpha"]


def test_fallback_when_nothing_matches(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("fraud", "good morning"))
    assert (decision.target, decision.layer) == ("concierge", Layer.fallback)


def test_no_route_when_the_fallback_is_the_sender(bank: Snapshot) -> None:
    decision = Router(bank).route(RouteRequest("concierge", "good morning"))
    assert decision.target is None
    assert decision.rejection is Reason.no_route
    assert [(c.agent, c.dropped) for c in decision.candidates] == [
        ("concierge", Reason.self_handoff)
    ]
    assert decision.detail == ("nothing matched, and the fallback is the sender itself: the "
                               "request stays with it")


def test_no_route_without_any_fallback(build: Build) -> None:
    snapshot = build([{"name": "a"}, {"name": "b"}])
    decision = Router(snapshot).route(RouteRequest("a", "hello"))
    assert (decision.target, decision.rejection, decision.candidates) == (
        None, Reason.no_route, ()
    )


def test_a_capability_rule_records_the_keywords_that_signalled_it(
    with_rules: Callable[..., Snapshot],
) -> None:
    snapshot = with_rules([{"id": "r", "to": "invest", "when": {"capabilities": ["fraud"]}}])
    decision = Router(snapshot).route(RouteRequest("concierge", "a scam, an unauthorized charge"))
    assert decision.rule == "r"
    assert decision.matched_keywords == ("scam", "unauthorized charge")
    assert decision.matched_capabilities == ("fraud",)
