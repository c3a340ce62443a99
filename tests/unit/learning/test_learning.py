"""Learning pieces: weighted log-odds keywords, conflicting labels, the stable split."""

from __future__ import annotations

from collections.abc import Sequence

from engine.config.loader import load_config
from engine.config.snapshot import Snapshot
from engine.evaluation.corpus import Row
from engine.learning.examples import choose_examples, distinct
from engine.learning.keywords import log_odds, spellings
from engine.learning.learn import mine_keywords, split
from engine.learning.thresholds import (
    Thresholds,
    choose_thresholds,
    thresholds_of,
    with_thresholds,
)
from engine.routing.normalize import Normalizer
from tests.conftest import CONFIGS


def rows(*pairs: tuple[str, str]) -> list[Row]:
    return [Row(n, text, agent, "concierge") for n, (text, agent) in enumerate(pairs, 2)]


def test_log_odds_finds_precise_frequent_terms_only() -> None:
    corpus = rows(*[(f"my wallet got nicked at stop {n}", "fraud") for n in range(25)],
                  *[(f"where is my parcel at stop {n}, got it?", "front") for n in range(30)],
                  *[(f"I nicked it {n}", "front") for n in range(3)])
    found = log_odds(corpus, Normalizer(), agents=["fraud"], known=set(), min_support=10)
    texts = [keyword.text for keyword in found]
    assert "wallet" in texts
    assert not {"my", "at", "got", "at stop"} & set(texts)  # words both agents use
    assert "nicked" not in texts  # 3 rows of 28 are not fraud: precision below 95%
    assert all(k.agent == "fraud" and k.precision >= 0.95 and k.support >= 10 for k in found)
    assert log_odds(corpus, Normalizer(), agents=["fraud"], known={("wallet",)},
                    min_support=10)[0].text != "wallet"


def test_utterances_labelled_twice_are_left_out() -> None:
    snapshot = load_config(CONFIGS / "banking")
    kept, conflicts = distinct(rows(("My card!", "fraud_agent"), ("my card", "concierge"),
                                    ("hello", "concierge"), ("Hello", "concierge")), snapshot)
    assert [row.text for row in kept] == ["hello"]
    assert conflicts == ["My card!"]


def test_the_split_is_stable_and_keeps_duplicates_together() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"question number {n}", "concierge") for n in range(200)],
                  ("Same words", "claims"), ("same WORDS!", "claims"))
    train, test = split(corpus, snapshot, 0.25)
    again = split(corpus, snapshot, 0.25)
    assert (train, test) == again and 20 < len(test) < 80
    assert sum(row.text.lower().startswith("same") for row in test) in (0, 2)


def test_examples_are_chosen_from_misrouted_rows_within_the_cap() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"my gizmo {n} is kaput", "claims") for n in range(5)],
                  ("what's my balance", "concierge"))
    learned = choose_examples(snapshot, corpus, cap=3)
    assert learned.count("claims") == 3 and learned.count("concierge") == 0
    assert all(agent == "claims" for agent, _ in learned.added)


def test_the_entry_agent_gets_no_keywords() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"zebra crossing {n}", "concierge") for n in range(30)])
    assert mine_keywords(snapshot, corpus) == []


def test_a_part_split_again_with_a_salt_keeps_rows_on_both_sides() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"question number {n}", "concierge") for n in range(400)])
    train, _test = split(corpus, snapshot, 0.2)
    assert split(train, snapshot, 0.2)[1] == []  # the same hash: nothing left to hold out
    fit, check = split(train, snapshot, 0.2, salt="again ")
    assert len(fit) > len(check) > 30


def test_thresholds_are_chosen_on_held_out_rows() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"my gizmo number {n} is kaput", "claims") for n in range(40)],
                  *[(f"what is my balance number {n}", "concierge") for n in range(40)])
    seen: list[tuple[Thresholds, int]] = []

    def learner(base: Snapshot, part: Sequence[Row]) -> Snapshot:
        seen.append((thresholds_of(base), len(part)))
        return base

    def splitter(part: Sequence[Row], base: Snapshot, share: float
                 ) -> tuple[list[Row], list[Row]]:
        return split(part, base, share, salt="t ")

    chosen, accuracy = choose_thresholds(snapshot, corpus, learner=learner, splitter=splitter)
    candidates = {t for t, _ in seen}
    assert thresholds_of(snapshot) in candidates and len(candidates) == len(seen) >= 9
    assert all(0 < size < len(corpus) for _, size in seen)  # learned on part of the rows
    assert chosen in candidates and 0 < accuracy <= 1
    assert with_thresholds(snapshot, chosen).config.engine.examples.margin == chosen.margin


def test_too_few_rows_keep_the_sets_own_thresholds() -> None:
    snapshot = load_config(CONFIGS / "banking")
    chosen, _ = choose_thresholds(snapshot, rows(("hello", "concierge")),
                                  learner=lambda base, part: base, splitter=split)
    assert chosen == thresholds_of(snapshot)


def test_keywords_made_of_words_common_in_other_agents_requests_are_not_mined() -> None:
    corpus = rows(*[(f"er don't know payment {n}", "fraud") for n in range(30)],
                  *[(f"how do I reset pin {n}", "front") for n in range(30)],
                  *[(f"app not working {n}", "front") for n in range(30)])
    found = log_odds(corpus, Normalizer(), agents=["fraud"], known=set(), min_support=10)
    texts = {keyword.text for keyword in found}
    assert "payment" in texts and "know payment" in texts
    assert not {"don't", "er don't", "do", "not"} & texts


def test_a_keyword_is_spelled_with_the_fewest_words() -> None:
    spelled = spellings(rows(("er don't know", "a"), ("um er don't", "a"), ("don't", "a")),
                         Normalizer())
    assert spelled[("do", "not")] == "don't"
