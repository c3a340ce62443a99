"""The packed score table: the same scores as the sparse per-term lists it is built from."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.loader import load_config
from engine.routing.examples import ExampleIndex
from engine.routing.packed import MAX_GROUPS, pack, packed_scores
from tests.unit.routing.conftest import Build

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


def sparse_scores(index: ExampleIndex, tokens: list[str]) -> tuple[dict[int, float], float]:
    """The reference: per-group sums of the sparse lists, best group per agent."""
    totals, norm = index.group_scores(tokens)
    pairs = enumerate(totals) if isinstance(totals, list) else totals.items()
    best: dict[int, float] = {}
    for group, value in pairs:
        agent = index.group_agents[group]
        if value > best.get(agent, 0.0):
            best[agent] = value
    return best, norm


@pytest.fixture(scope="module")
def banking_index() -> ExampleIndex:
    index = load_config(BANKING).example_index
    assert index is not None and index.packed is not None
    return index


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_packed_scores_equal_the_sparse_sums(banking_index: ExampleIndex, data: st.DataObject
                                             ) -> None:
    vocabulary = sorted(word for word in banking_index.terms if " " not in word)
    words = data.draw(st.lists(st.sampled_from([*vocabulary, "zork", "quux"]), max_size=14))
    assert banking_index.packed is not None
    packed, norm = banking_index.packed.scores(words)
    expected, expected_norm = sparse_scores(banking_index, words)
    assert packed.keys() == expected.keys()
    for agent, value in expected.items():
        assert packed[agent] == pytest.approx(value, abs=1e-6)
    assert norm == pytest.approx(expected_norm, rel=1e-12)


def test_a_repeated_word_or_pair_counts_once(banking_index: ExampleIndex) -> None:
    assert banking_index.packed is not None
    once = banking_index.packed.scores(["my", "card", "was", "stolen"])
    twice = banking_index.packed.scores(["my", "card", "was", "stolen"] * 2)
    assert once == twice


def test_each_agent_owns_consecutive_groups(banking_index: ExampleIndex) -> None:
    owners = banking_index.group_agents
    runs = [agent for n, agent in enumerate(owners) if n == 0 or owners[n - 1] != agent]
    assert len(runs) == len(set(runs))
    assert banking_index.packed is not None
    spans = banking_index.packed.spans
    assert sum(end - start for _agent, start, end in spans) == len(owners)


def test_group_totals_decode_the_packed_sums(banking_index: ExampleIndex) -> None:
    assert banking_index.packed is not None
    tokens = ["i", "do", "not", "recognis", "this", "payment", "on", "my", "card"]
    decoded = banking_index.packed.totals(tokens)
    sparse, _norm = banking_index.group_scores(tokens)
    assert decoded == pytest.approx(sparse, abs=1e-6)


def test_pack_places_each_group_in_its_own_field() -> None:
    assert pack([(0, 1.0), (2, 0.5)]) == (1 << 30) | ((1 << 29) << 128)


def test_many_groups_keep_the_sparse_lists(build: Build) -> None:
    agents = [{"name": "front"}] + [
        {"name": f"desk{n}", "examples": [f"topic{n} request", f"about topic{n}"]}
        for n in range(MAX_GROUPS + 1)
    ]
    snapshot = build(agents, fallback="front")
    index = snapshot.example_index
    assert index is not None and index.packed is None
    scores, norm = index.scores(["topic7", "request"])
    assert max(scores, key=scores.__getitem__) == 8 and norm > 0


def test_an_agents_groups_must_be_consecutive() -> None:
    terms = {"card": (1.0, ((0, 0.5), (2, 0.5)))}
    assert packed_scores(terms, (0, 1, 1), unseen=1.0) is not None
    with pytest.raises(ValueError, match="consecutively"):
        packed_scores(terms, (0, 1, 0), unseen=1.0)
