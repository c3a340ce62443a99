"""Properties over generated configs and requests: never the sender, never a disabled agent,
always allowed by policy, deterministic, and the same answer as a naive scan."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.routing import Hop, Layer, Router, RouteRequest
from engine.routing.policy import round_trips
from engine.routing.snapshot import Snapshot

Build = Callable[..., Snapshot]
NAMES = ["a0", "a1", "a2", "a3", "a4"]
VOCABULARY = {"cards": ["card"], "fraud": ["stolen", "fraud"], "loans": ["loan", "mortgage"]}
WORDS = ["card", "cardiology", "stolen", "loan", "mortgage", "hello", "fraud", "my"]


@st.composite
def configs(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    count = draw(st.integers(min_value=2, max_value=len(NAMES)))
    names = NAMES[:count]
    agents = []
    for name in names:
        agents.append({
            "name": name,
            "capabilities": draw(st.lists(st.sampled_from(sorted(VOCABULARY)), unique=True)),
            "enabled": draw(st.booleans()),
            "peers": draw(st.one_of(st.just(["*"]), st.lists(st.sampled_from(names), unique=True))),
            "handoff": {"trigger": f"to_{name}"},
        })
    rules = [
        {"id": f"r{n}", "to": draw(st.sampled_from(names)),
         "priority": draw(st.integers(0, 3)),
         "when": {"keywords": {"any": draw(st.lists(st.sampled_from(WORDS), min_size=1))}}}
        for n in range(draw(st.integers(0, 3)))
    ]
    return agents, rules, draw(st.one_of(st.none(), st.sampled_from(names)))


@st.composite
def requests(draw: st.DrawFn) -> RouteRequest:
    return RouteRequest(
        sender=draw(st.sampled_from(NAMES[:2])),
        text=" ".join(draw(st.lists(st.sampled_from(WORDS), max_size=6))),
        tool=draw(st.one_of(st.none(), st.sampled_from([f"to_{n}" for n in NAMES[:2]]))),
    )


def _snapshot(build: Build, config: tuple[Any, ...]) -> Snapshot:
    agents, rules, fallback = config
    return build(agents, capabilities=VOCABULARY, rules=rules, fallback=fallback,
                 policies={"max_hops": 4, "max_bounces": 1})


histories = st.lists(st.tuples(st.sampled_from(NAMES[:3]), st.sampled_from(NAMES[:3])),
                     max_size=5)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(config=configs(), request=requests(), history=histories)
def test_the_target_is_never_the_sender_and_always_allowed(
    build: Build, config: tuple[Any, ...], request: RouteRequest, history: list[Hop]
) -> None:
    snapshot = _snapshot(build, config)
    decision = Router(snapshot).route(request, history=history)
    if decision.target is None:
        assert decision.rejection is not None
        return
    target, sender = snapshot.agents[decision.target], snapshot.agents[request.sender]
    assert decision.target != request.sender
    assert target.enabled
    assert sender.may_hand_off_to(target.name) and target.accepts_from(sender.name)
    policies = snapshot.config.engine.policies
    assert len(history) < policies.max_hops
    assert round_trips(history, sender.name, target.name) <= policies.max_bounces


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(config=configs(), request=requests())
def test_routing_is_deterministic(
    build: Build, config: tuple[Any, ...], request: RouteRequest
) -> None:
    first = Router(_snapshot(build, config)).route(request)
    again = Router(_snapshot(build, config)).route(request)
    assert first == again
    assert first.to_dict() == again.to_dict()


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(config=configs(), request=requests())
def test_keyword_winner_matches_a_naive_scan(
    build: Build, config: tuple[Any, ...], request: RouteRequest
) -> None:
    agents, _, fallback = config
    snapshot = _snapshot(build, (agents, [], fallback))
    decision = Router(snapshot).route(request._replace(tool=None))
    if decision.layer is not Layer.keyword:
        return
    signalled = set(decision.matched_capabilities)
    sender = snapshot.agents[request.sender]
    allowed = [
        agent for agent in snapshot.agents.values()
        if agent.name != sender.name and agent.enabled and sender.may_hand_off_to(agent.name)
        and signalled & set(agent.capabilities)
    ]
    best = max(len(signalled & set(agent.capabilities)) for agent in allowed)
    expected = next(a.name for a in allowed if len(signalled & set(a.capabilities)) == best)
    assert decision.target == expected
