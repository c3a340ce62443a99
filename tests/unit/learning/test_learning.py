"""Learning pieces: weighted log-odds keywords, cleaning a corpus, the stable split, examples up
to a cap, thresholds chosen on held-out rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.evaluation.corpus import Row
from engine.evaluation.sweep import Thresholds, thresholds_of, with_thresholds
from engine.learning.clean import clean
from engine.learning.examples import choose_examples
from engine.learning.keywords import log_odds, spellings
from engine.learning.learn import learn_from, learned_snapshot, mine_keywords, split
from engine.learning.thresholds import (
    MARGINS,
    MIN_SCORES,
    TEMPERATURES,
    UNKNOWN_WORDS,
    choose_thresholds,
)
from engine.loading.loader import load_config
from engine.text.normalize import Normalizer
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


def test_cleaning_keeps_one_row_per_text_and_agent_and_the_majority_label() -> None:
    snapshot = load_config(CONFIGS / "banking")
    kept, report = clean(rows(
        ("My card!", "fraud_agent"), ("my card", "concierge"), ("card my", "fraud_agent"),
        ("hello", "concierge"), ("Hello", "concierge"),
        ("zebra crossing", "claims"), ("crossing zebra", "concierge"),
        ("?!", "claims"),
    ), snapshot)
    assert [(row.text, row.agent) for row in kept] == [("My card!", "fraud_agent"),
                                                         ("hello", "concierge")]
    assert report.counts == {"duplicate": 2, "conflict": 1, "tie": 2, "no-words": 1}
    assert report.samples["conflict"] == [(3, "my card")]


def test_cleaning_lets_the_set_win_and_makes_every_text_writable() -> None:
    snapshot = load_config(CONFIGS / "banking")
    own = snapshot.config.capabilities["card_security"].examples[0]
    other_agent = "claims"
    long = "word " * 200
    kept, report = clean(rows((own, "fraud_agent"), (own, other_agent),
                              ("line one\u2028line\ttwo\x00three", "claims"),
                              (long, "concierge")), snapshot)
    assert report.counts["known"] == 1 and report.counts["set-conflict"] == 1
    assert report.counts["cut"] == 1
    texts = [row.text for row in kept]
    assert "line one line two three" in texts
    assert all(len(text) <= 500 and text == " ".join(text.split()) for text in texts)


def test_the_split_is_stable_and_keeps_duplicates_together() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"question number {n}", "concierge") for n in range(200)],
                  ("Same words", "claims"), ("same WORDS!", "claims"))
    train, test = split(corpus, snapshot, 0.25)
    again = split(corpus, snapshot, 0.25)
    assert (train, test) == again and 20 < len(test) < 80
    assert sum(row.text.lower().startswith("same") for row in test) in (0, 2)


def test_every_row_becomes_an_example_up_to_the_cap_the_same_way_each_time() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"my gizmo {n} is kaput", "claims") for n in range(5)],
                  ("what's my balance", "concierge"))
    learned = choose_examples(snapshot, corpus, cap=3)
    assert learned.count("claims") == 3 and learned.count("concierge") == 1
    assert choose_examples(snapshot, list(reversed(corpus)), cap=3).count("claims") == 3
    assert {tuple(sorted(texts)) for texts in learned.added.values()} == {
        tuple(sorted(texts)) for texts in choose_examples(snapshot, corpus, cap=3).added.values()}


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


@pytest.mark.slow
def test_thresholds_are_chosen_on_held_out_rows_within_the_false_transfer_bound() -> None:
    snapshot = load_config(CONFIGS / "banking")
    corpus = rows(*[(f"my gizmo number {n} is kaput again", "claims") for n in range(40)],
                  *[(f"what is my balance number {n} today", "concierge") for n in range(40)],
                  *[(f"my gizmo balance {n}", "concierge") for n in range(10)])
    fit, check = split(corpus, snapshot, 0.3, salt="t ")
    learned = learned_snapshot(snapshot, *learn_from(snapshot, fit, cap=100))
    chosen = choose_thresholds(learned, check, max_false_transfer=0.0)
    assert chosen.temperature in TEMPERATURES
    assert chosen.min_score in MIN_SCORES and chosen.margin in MARGINS
    strict = with_thresholds(learned, chosen)
    assert strict.config.engine.examples.margin == chosen.margin
    stays = [row for row in check if row.agent == "concierge"]
    from engine.routing import Router, RouteRequest

    router = Router(strict)
    assert all(router.route(RouteRequest(row.sender, row.text)).target is None for row in stays)


@pytest.mark.slow
def test_a_heavier_unknown_word_weight_is_chosen_when_it_keeps_unknown_requests_home() -> None:
    snapshot = load_config(CONFIGS / "banking")
    fit = rows(*[(f"my gizmo number {n} is kaput again", "claims") for n in range(40)],
               *[(f"what is my balance number {n} today", "concierge") for n in range(40)])
    learned = learned_snapshot(snapshot, *learn_from(snapshot, fit, cap=100))
    claims = rows(*[(f"the gizmo {n} is kaput", "claims") for n in range(10)])
    unknown = rows(*[(f"my gizmo is kaput again quokka{n} zeppelin{n} marimba{n}", "concierge")
                     for n in range(10)])  # about something no example mentions: stays
    chosen = choose_thresholds(learned, claims + unknown, max_false_transfer=0.0)
    assert chosen.unknown_words in UNKNOWN_WORDS and chosen.unknown_words > 1.0
    strict = with_thresholds(learned, chosen)
    assert strict.config.engine.examples.unknown_words == chosen.unknown_words
    from engine.routing import Router, RouteRequest

    router = Router(strict)
    assert all(router.route(RouteRequest(r.sender, r.text)).target is None for r in unknown)
    assert all(router.route(RouteRequest(r.sender, r.text)).target == "claims" for r in claims)
    unbounded = choose_thresholds(learned, claims + unknown, max_false_transfer=None)
    assert unbounded.unknown_words == thresholds_of(learned).unknown_words  # no bound: its own


def test_no_rows_keep_the_sets_own_thresholds() -> None:
    snapshot = load_config(CONFIGS / "banking")
    assert choose_thresholds(snapshot, [], max_false_transfer=None) == thresholds_of(snapshot)
    assert isinstance(thresholds_of(snapshot), Thresholds)


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


def test_examples_never_grow_a_file_past_the_size_a_set_file_may_have(tmp_path: Path) -> None:
    from engine.learning.examples import FILE_BUDGET

    folder = tmp_path / "banking"
    shutil.copytree(CONFIGS / "banking", folder, ignore=shutil.ignore_patterns("corpus"))
    capabilities = folder / "capabilities.yaml"
    padding = "# " + "x" * 98 + "\n"
    text = capabilities.read_text()
    capabilities.write_text(text + padding * max(0, (850_000 - len(text)) // 100))  # ~850 KB
    snapshot = load_config(folder)
    corpus = rows(*[(f"fraud report {n} " + "stolen card " * 40, "fraud_agent")
                    for n in range(300)])
    learned = choose_examples(snapshot, corpus, cap=1000)
    added = sum(len(text.encode()) + 16 for texts in learned.added.values() for text in texts)
    assert learned.over_budget > 0 and learned.count("fraud_agent") > 0
    assert capabilities.stat().st_size + added <= FILE_BUDGET
