"""Threshold sweeps: rows are seen at the set's own unknown-word weight, and a heavier weight
makes a request about something no example mentions less sure."""

from __future__ import annotations

from dataclasses import replace

from engine.evaluation.corpus import Row
from engine.evaluation.sweep import seen_rows, thresholds_of, with_thresholds
from engine.loading.loader import load_config
from tests.conftest import CONFIGS

UNKNOWN = Row(2, "what cards do you offer zeppelin marimba quokka", "card_recommendation",
              "concierge")


def test_rows_are_seen_at_the_sets_own_unknown_word_weight() -> None:
    snapshot = load_config(CONFIGS / "banking")
    own = thresholds_of(snapshot)
    seen = {}
    for weight in (own.unknown_words, 1.5, 3.0):
        weighted = with_thresholds(snapshot, replace(own, unknown_words=weight))
        assert thresholds_of(weighted).unknown_words == weight
        seen[weight], = seen_rows(weighted, [UNKNOWN], own.temperature)
    assert seen[own.unknown_words].agent == seen[1.5].agent == "card_recommendation"
    assert seen[1.5].score < seen[own.unknown_words].score  # less sure
    assert seen[3.0].agent is None  # the entry agent's own examples win: it stays


def test_a_curve_scores_rows_with_several_labels_as_the_evaluation_does() -> None:
    """Rows right wherever they go (every agent is one of their labels): at each threshold
    they are scored against the agent they go to there, not against the one the examples
    layer picks at any score, so every point is as right as the evaluation at it."""
    from engine.evaluation.run import evaluate
    from engine.evaluation.sweep import curve
    from engine.routing.router import Router

    snapshot = load_config(CONFIGS / "banking")
    agents = tuple(snapshot.agents)
    texts = ["a stranger used my card online", "which credit card is right for me",
             "can I get a card for my kid", "I want to make a subject access request"]
    rows = [Row(n, text, "concierge", "concierge", also=agents)
            for n, text in enumerate(texts, 2)]
    own = thresholds_of(snapshot)
    points = curve(snapshot, rows)
    assert points and {point.accuracy for point in points} == {1.0}
    for point in points[::5]:
        at = with_thresholds(snapshot, replace(own, min_score=point.min_score))
        tally = evaluate(Router(at), rows, agents=agents, worst=0).tally
        assert tally.correct == tally.rows
