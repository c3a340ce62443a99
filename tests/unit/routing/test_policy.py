"""Policy at every layer: a refused trigger is a typed rejection; lower layers try the next."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.errors import RoutingError, UsageError
from engine.routing import Layer, Reason, Router, RouteRequest
from engine.routing.policy import round_trips
from engine.routing.snapshot import Snapshot
from engine.routing.tables import SMALL, _allow_set

Build = Callable[..., Snapshot]


def _snapshot(build: Build, **changes: dict[str, Any]) -> Snapshot:
    agents = [
        {"name": "hub"},
        {"name": "a", "capabilities": ["cards"], "handoff": {"trigger": "to_a"}},
        {"name": "b", "capabilities": ["cards"], "handoff": {"trigger": "to_b"}},
    ]
    agents = [{**agent, **changes.get(agent["name"], {})} for agent in agents]
    return build(agents, capabilities={"cards": ["card"]}, policies={"max_bounces": 1})


REFUSALS = [
    ("disabled", {"a": {"enabled": False}}, "hub", Reason.disabled),
    ("peers", {"hub": {"peers": ["b"]}}, "hub", Reason.not_allowed),
    ("empty peers mean no one", {"hub": {"peers": []}}, "hub", Reason.not_allowed),
    ("accepts", {"a": {"accepts": {"from": ["b"]}}}, "hub", Reason.not_allowed),
    ("self", {}, "a", Reason.self_handoff),
]


@pytest.mark.parametrize(("case", "changes", "sender", "reason"), REFUSALS)
def test_a_forbidden_trigger_is_rejected_never_rerouted(
    build: Build, case: str, changes: dict[str, Any], sender: str, reason: Reason
) -> None:
    decision = Router(_snapshot(build, **changes)).route(RouteRequest(sender, "card", tool="to_a"))
    assert (decision.target, decision.layer, decision.rejection) == (None, Layer.trigger, reason)
    assert decision.candidates[0].dropped is reason
    with pytest.raises(RoutingError) as raised:
        decision.raise_for_rejection()
    assert raised.value.reason == reason.value


@pytest.mark.parametrize(("case", "changes", "sender", "reason"), REFUSALS)
def test_keyword_layer_drops_a_forbidden_candidate_and_takes_the_next(
    build: Build, case: str, changes: dict[str, Any], sender: str, reason: Reason
) -> None:
    snapshot = _snapshot(build, **{**changes, "hub": {**changes.get("hub", {}), "peers": ["*"]}})
    if case.startswith(("peers", "empty")):
        snapshot = _snapshot(build, hub={"peers": ["b"]})
    decision = Router(snapshot).route(RouteRequest(sender, "card"))
    assert (decision.target, decision.layer) == ("b", Layer.keyword)
    assert decision.candidates[0] == ("a", Layer.keyword, 1, reason, None)


def test_unknown_explicit_target_is_rejected(build: Build) -> None:
    decision = Router(_snapshot(build)).route(RouteRequest("hub", "x", target="ghost"))
    assert (decision.target, decision.rejection) == (None, Reason.unknown_target)
    assert "'ghost' is not a declared agent" in decision.detail


def test_unknown_sender_is_a_usage_error(build: Build) -> None:
    with pytest.raises(UsageError, match="unknown sender agent 'ghost'"):
        Router(_snapshot(build)).route(RouteRequest("ghost", "card"))


def test_a_rule_to_a_forbidden_target_is_dropped_and_the_next_rule_tried(build: Build) -> None:
    agents = [{"name": "hub", "peers": ["b"]}, {"name": "a"}, {"name": "b"}]
    rules = [{"id": "to-a", "to": "a", "priority": 2}, {"id": "to-b", "to": "b", "priority": 1}]
    decision = Router(build(agents, rules=rules)).route(RouteRequest("hub", "x"))
    assert (decision.target, decision.rule) == ("b", "to-b")
    assert [(c.rule, c.dropped) for c in decision.candidates] == [
        ("to-a", Reason.not_allowed), ("to-b", None)
    ]


def test_round_trips_count_the_trailing_ping_pong_with_the_proposed_hop() -> None:
    assert round_trips([], "a", "b") == 0
    assert round_trips([("a", "b")], "b", "a") == 1
    assert round_trips([("a", "b"), ("b", "a")], "a", "b") == 1
    assert round_trips([("a", "b"), ("b", "a"), ("a", "b")], "b", "a") == 2
    assert round_trips([("c", "a"), ("a", "b"), ("b", "a")], "a", "b") == 1
    assert round_trips([("a", "b"), ("b", "c")], "c", "b") == 1
    assert round_trips([("a", "b"), ("b", "c")], "c", "a") == 0


PING_PONG = [("a", "b"), ("b", "a"), ("a", "b")]


def test_a_round_trip_beyond_max_bounces_is_a_loop(build: Build) -> None:
    router = Router(_snapshot(build))  # max_bounces: 1
    back = router.route(RouteRequest("b", "x", tool="to_a"), history=PING_PONG[:1])
    again = router.route(RouteRequest("a", "x", tool="to_b"), history=PING_PONG[:2])
    assert (back.target, again.target) == ("a", "b")
    refused = router.route(RouteRequest("b", "x", tool="to_a"), history=PING_PONG)
    assert (refused.target, refused.rejection) == (None, Reason.loop)
    assert "more than 1 round trip(s)" in refused.detail


def test_zero_bounces_refuses_any_return(build: Build) -> None:
    agents = [{"name": "a", "handoff": {"trigger": "to_a"}}, {"name": "b"}]
    router = Router(build(agents, policies={"max_bounces": 0}))
    decision = router.route(RouteRequest("b", "x", tool="to_a"), history=[("a", "b")])
    assert decision.rejection is Reason.loop


def test_ping_pong_drops_the_keyword_candidate_too(build: Build) -> None:
    router = Router(_snapshot(build))
    decision = router.route(RouteRequest("b", "card"), history=PING_PONG)
    assert decision.target is None
    assert [(c.agent, c.dropped) for c in decision.candidates] == [
        ("a", Reason.loop), ("b", Reason.self_handoff)
    ]


def test_max_hops_refuses_any_further_handoff(build: Build) -> None:
    agents = [{"name": "a", "handoff": {"trigger": "to_a"}}, {"name": "b"}, {"name": "c"}]
    router = Router(build(agents, policies={"max_hops": 2}, fallback="c"))
    history = [("a", "b"), ("b", "c")]
    by_trigger = router.route(RouteRequest("c", "x", tool="to_a"), history=history)
    assert (by_trigger.layer, by_trigger.rejection) == (Layer.trigger, Reason.loop)
    assert by_trigger.candidates == (("a", Layer.trigger, 0, Reason.loop, None),)
    by_fallback = router.route(RouteRequest("b", "x"), history=history)
    assert (by_fallback.target, by_fallback.rejection) == (None, Reason.loop)
    assert router.route(RouteRequest("b", "x"), history=history[:1]).target == "c"


@pytest.mark.parametrize("count", [0, 1, SMALL, SMALL + 1, 50])
def test_allowed_names_answer_alike_at_every_size(count: int) -> None:
    names = tuple(f"n{index}" for index in range(count))
    allowed = _allow_set(names)
    assert allowed is not None and all(name in allowed for name in names)
    assert "other" not in allowed and "n" not in allowed
    assert isinstance(allowed, frozenset) == (count > SMALL)  # a small list is its own tuple
    assert _allow_set((*names, "*")) is None  # anyone
