"""Learning pieces: weighted log-odds keywords, conflicting labels, the stable split."""

from __future__ import annotations

from engine.config.loader import load_config
from engine.evaluation.corpus import Row
from engine.learning.examples import choose_examples, distinct
from engine.learning.keywords import log_odds
from engine.learning.learn import mine_keywords, split
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
