"""The examples layer: nearest agent by example utterances, thresholds, policy, evidence."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.routing import Layer, Reason, Router, RouteRequest
from engine.routing.snapshot import Snapshot
from tests.unit.routing.conftest import Build

AGENTS: list[dict[str, Any]] = [
    {"name": "front", "capabilities": ["c_front"],
     "examples": ["what is my balance", "change my address"]},
    {"name": "fraud", "capabilities": ["c_fraud"],
     "examples": ["someone used my card without asking", "I do not recognise this payment"]},
    {"name": "cards", "peers": ["front"], "accepts": {"from": ["front"]},
     "examples": ["which credit card gives cashback", "upgrade to a premium card"]},
]
CAPABILITIES: dict[str, Any] = {
    "c_front": {"examples": ["activate my new card", "my new card has not arrived"]},
    "c_fraud": {"examples": ["my card was stolen", "I lost my wallet"]},
}


def snapshot(build: Build, **engine: Any) -> Snapshot:
    agents = [dict(agent) for agent in AGENTS]
    agents[1]["peers"] = ["front"]
    return build(agents, capabilities=CAPABILITIES, fallback="front",
                 engine={"examples": engine} if engine else None)


def route(snap: Snapshot, text: str, sender: str = "front"):  # type: ignore[no-untyped-def]
    return Router(snap).route(RouteRequest(sender, text))


def test_closest_examples_decide(build: Build) -> None:
    decision = route(snapshot(build), "uh so my card was um stolen yesterday")
    assert (decision.target, decision.layer) == ("fraud", Layer.example)
    assert decision.examples is not None and decision.examples.agent == "fraud"
    assert decision.candidates[-1].layer is Layer.example


def test_everyday_requests_stay_with_the_entry_agent(build: Build) -> None:
    decision = route(snapshot(build), "how do I activate my new card")
    assert decision.target is None and decision.rejection is Reason.no_route
    assert decision.examples is not None and decision.examples.agent == "front"
    assert [c.dropped for c in decision.candidates] == [Reason.self_handoff] * 2


def test_below_min_score_falls_through_to_the_fallback(build: Build) -> None:
    decision = route(snapshot(build, min_score=0.99), "somebody stole my card", sender="cards")
    assert (decision.target, decision.layer) == ("front", Layer.fallback)
    assert decision.candidates[0].dropped is Reason.unclear
    assert decision.examples is not None


def test_a_close_runner_up_is_unclear(build: Build) -> None:
    text = "my card was stolen and I want a premium card"
    match = route(snapshot(build), text).examples
    assert match is not None
    decision = route(snapshot(build, margin=match.margin + 0.01), text)
    assert decision.target is None and decision.candidates[0].dropped is Reason.unclear


def test_policy_applies_to_the_examples_layer(build: Build) -> None:
    decision = route(snapshot(build), "which credit card gives cashback", sender="fraud")
    assert decision.candidates[0] == ("cards", Layer.example, decision.candidates[0].score,
                                      Reason.not_allowed, None)
    assert (decision.target, decision.layer) == ("front", Layer.fallback)


def test_keywords_and_rules_come_first(build: Build) -> None:
    agents = [dict(agent) for agent in AGENTS]
    snap = build(agents, capabilities={**CAPABILITIES, "c_fraud": {
        "keywords": ["wallet"], "examples": ["my card was stolen"]}}, fallback="front")
    assert route(snap, "which wallet gives cashback").layer is Layer.keyword


def test_evidence_names_terms_and_nearest_examples(build: Build) -> None:
    decision = route(snapshot(build), "I lost my wallet and my card was stolen")
    match = decision.examples
    assert match is not None
    assert match.nearest[0].text in ("I lost my wallet", "my card was stolen")
    assert match.nearest[0].agent == "fraud"
    assert match.terms and all(weight > 0 for _, weight in match.terms)
    assert {"stolen", "was stolen", "i lost"} & {term for term, _ in match.terms}
    assert match.ranked[0][0] == "fraud" and match.margin == pytest.approx(
        match.ranked[0][1] - match.ranked[1][1])
    document = json.loads(json.dumps(decision.to_dict()))
    assert document["examples"]["agent"] == "fraud"
    assert document["layer"] == "example"


def test_unknown_words_lower_the_score(build: Build) -> None:
    plain = route(snapshot(build), "my card was stolen").examples
    padded = route(snapshot(build), "zork quux blorf my card was stolen").examples
    assert plain is not None and padded is not None
    assert padded.score < plain.score


def test_no_examples_no_layer(build: Build) -> None:
    snap = build([{"name": "a"}, {"name": "b"}], fallback="a")
    assert snap.example_index is None
    assert route(snap, "anything at all", sender="b").layer is Layer.fallback


def test_a_capability_shared_by_two_agents_is_unclear(build: Build) -> None:
    snap = build([{"name": "front"}, {"name": "x", "capabilities": ["both"]},
                  {"name": "y", "capabilities": ["both"]}],
                 capabilities={"both": {"examples": ["reset my password"]}})
    decision = route(snap, "reset my password")
    assert decision.examples is not None and decision.examples.margin == 0
    assert decision.candidates[0].dropped is Reason.unclear


def kept_snapshot(build: Build, sender_margin: float) -> Snapshot:
    """`statement` is a keyword of the entry agent's own capability; the fraud desk's
    examples are closer to a statement question that also mentions a payment."""
    capabilities = {
        "c_front": {"keywords": ["statement"], "examples": ["send me a statement"]},
        "c_fraud": {"examples": ["strange payments on my card", "a payment I never made"]},
    }
    agents = [{"name": "front", "capabilities": ["c_front"]},
              {"name": "fraud", "capabilities": ["c_fraud"], "peers": ["front"]}]
    return build(agents, capabilities=capabilities, fallback="front",
                 engine={"examples": {"sender_margin": sender_margin}})


TEXT = "strange payments on my statement"


def test_the_senders_own_keywords_keep_the_request_unless_a_desk_is_clearly_closer(
        build: Build) -> None:
    open_ = route(kept_snapshot(build, 0.0), TEXT)
    assert (open_.target, open_.layer) == ("fraud", Layer.example)
    match = open_.examples
    assert match is not None
    lead = match.score - match.similarity("front")
    kept = route(kept_snapshot(build, lead + 0.01), TEXT)
    assert kept.target is None and kept.rejection is Reason.no_route
    assert kept.candidates[-1][:2] == ("fraud", Layer.example)
    assert kept.candidates[-1].dropped is Reason.unclear
    assert "sender's own keywords (statement)" in kept.detail
    assert route(kept_snapshot(build, lead - 0.01), TEXT).target == "fraud"


def test_a_kept_request_does_not_fall_back(build: Build) -> None:
    capabilities = {"c_fraud": {"keywords": ["statement"],
                                "examples": ["strange payments on my card"]},
                    "c_front": {"examples": ["send me a statement"]}}
    agents = [{"name": "front", "capabilities": ["c_front"]},
              {"name": "fraud", "capabilities": ["c_fraud"]}]
    snap = build(agents, capabilities=capabilities, fallback="front",
                 engine={"examples": {"sender_margin": 1.0}})
    decision = route(snap, "send me my statement please", sender="fraud")
    assert decision.target is None and "sender's own keywords" in decision.detail
    assert all(c.layer is not Layer.fallback for c in decision.candidates)


def test_a_capability_name_alone_does_not_keep_the_request(build: Build) -> None:
    capabilities = {"statement": {"examples": ["send me a statement"]},
                    "c_fraud": {"examples": ["strange payments on my card"]}}
    agents = [{"name": "front", "capabilities": ["statement"]},
              {"name": "fraud", "capabilities": ["c_fraud"]}]
    snap = build(agents, capabilities=capabilities, fallback="front",
                 engine={"examples": {"sender_margin": 1.0}})
    assert route(snap, TEXT).target == "fraud"


def test_a_request_that_is_an_example_scores_one_for_its_agent(build: Build) -> None:
    capabilities = {"c_front": {"examples": [
        "what cards do I have", "do you offer a card reader", "what do you offer on my card",
        "what card do I use", "cards you offer"]}}
    agents = [{"name": "front", "capabilities": ["c_front"]},
              {"name": "cards", "examples": ["what cards do you offer", "upgrade to a metal card",
                                             "a card with cashback", "compare premium cards"]}]
    snap = build(agents, capabilities=capabilities, fallback="front")
    decision = route(snap, "What cards do you offer?")
    assert decision.examples is not None and decision.examples.score == pytest.approx(1.0)
    assert (decision.target, decision.layer) == ("cards", Layer.example)


def test_an_example_of_two_agents_is_no_shortcut(build: Build) -> None:
    agents = [{"name": "front", "examples": ["reset my password", "hello there"]},
              {"name": "x", "examples": ["reset my password", "open an account"]}]
    index = build(agents, fallback="front").example_index
    assert index is not None and ("reset", "my", "password") not in index.exact
