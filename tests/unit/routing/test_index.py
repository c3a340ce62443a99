"""The inverted keyword index: whole words, phrases, synonyms, declaration order."""

from __future__ import annotations

from engine.config.models import AgentSpec, CapabilitySpec
from engine.routing import KeywordIndex, build_keyword_index


def _index() -> KeywordIndex:
    capabilities = {
        "cards": CapabilitySpec(name="cards", keywords=("card", "credit card"), synonyms=("visa",)),
        "health": CapabilitySpec(name="health", keywords=("cardiology",)),
        "fraud": CapabilitySpec(name="fraud", keywords=("stolen card",)),
    }
    agents = [
        AgentSpec(name="a", capabilities=("cards",)),
        AgentSpec(name="b", capabilities=("health", "cards", "cards")),
    ]
    return build_keyword_index(agents, capabilities)


def test_card_never_matches_cardiology() -> None:
    index = build_keyword_index([], {"cards": CapabilitySpec(name="cards", keywords=("card",))})
    assert index.match("referred to cardiology") == {}
    assert index.match("my CARD!") == {"cards": ["card"]}


def test_phrases_match_only_as_consecutive_whole_words() -> None:
    index = _index()
    assert index.match("a credit card") == {"cards": ["credit card", "card"]}
    assert index.match("credit for the card") == {"cards": ["card"]}
    assert index.match("stolen cardholder") == {}


def test_synonyms_and_capability_names_are_keywords() -> None:
    index = _index()
    assert index.match("Visa") == {"cards": ["visa"]}
    assert index.match("health check") == {"health": ["health"]}


def test_one_phrase_can_signal_two_capabilities() -> None:
    index = _index()
    found = index.match("my stolen card")
    assert found == {"fraud": ["stolen card"], "cards": ["card"]}


def test_scores_count_distinct_capabilities_per_agent_position() -> None:
    index = _index()
    assert index.agent_names == ("a", "b")
    ranking = index.ranking(["cards", "health", "unknown"])
    assert ranking.all() == [1, 0]
    assert ranking.scores == {0: 1, 1: 2}


def test_a_phrase_matches_in_any_order_within_three_words_by_default(build) -> None:  # type: ignore[no-untyped-def]
    snapshot = build(
        [{"name": "front"}, {"name": "fraud", "capabilities": ["fraud"]}],
        capabilities={"fraud": ["stolen card"]},
    )
    assert snapshot.config.engine.normalization.phrase_window == 3
    assert snapshot.keyword_index.match("my card was stolen") == {"fraud": ["stolen card"]}
    assert snapshot.keyword_index.match("a stolen card") == {"fraud": ["stolen card"]}


def test_keywords_and_rules_share_the_pipeline(build) -> None:  # type: ignore[no-untyped-def]
    snapshot = build(
        [{"name": "front"}, {"name": "fraud", "capabilities": ["fraud"]}],
        capabilities={"fraud": ["didn't make", "stolen card"]},
        rules=[{"id": "r", "to": "fraud", "when": {"keywords": {"any": ["card stolen"]}}}],
        engine={"normalization": {"phrase_window": 3}},
    )
    assert snapshot.keyword_index.match("uh I did not make these") == {"fraud": ["didn't make"]}
    assert snapshot.keyword_index.match("they stole my cards") == {}
    assert snapshot.keyword_index.match("my cards were stolen") == {"fraud": ["stolen card"]}
    from engine.routing import Router, RouteRequest

    decision = Router(snapshot).route(RouteRequest("front", "someone STOLE... no, stolen card"))
    assert decision.rule == "r"
