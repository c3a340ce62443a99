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
