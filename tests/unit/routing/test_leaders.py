"""The examples layer's two most probable agents, read straight from numpy: the same agents and
probabilities as ranking every agent's summed probability (the first declared on a tie), with
one group per agent and with agents whose capabilities give them several groups, and never an
agent without examples."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.routing.snapshot import Snapshot
from tests.unit.routing.conftest import build_snapshot

WORDS = ["card", "stolen", "lost", "balance", "statement", "invest", "fund", "refund",
         "charge", "new", "address", "pension", "wallet", "zebra"]


def _several_groups() -> Snapshot:
    return build_snapshot([
        {"name": "front", "capabilities": ["everyday"], "examples": ["what is my balance"]},
        {"name": "quiet"},  # no examples: never a leader
        {"name": "fraud", "capabilities": ["stolen", "everyday"],
         "examples": ["I lost my wallet"]},
        {"name": "invest", "capabilities": ["funds"]},
    ], capabilities={
        "everyday": {"examples": ["change my address", "send me a statement"]},
        "stolen": {"examples": ["my card was stolen", "a charge I do not know"]},
        "funds": {"examples": ["invest in a fund", "my pension fund"]},
    })


def _one_group_each() -> Snapshot:
    return build_snapshot([
        {"name": "front", "examples": ["what is my balance", "change my address"]},
        {"name": "quiet"},
        {"name": "fraud", "examples": ["my card was stolen", "I lost my wallet"]},
        {"name": "invest", "examples": ["invest in a fund", "my pension fund"]},
    ])


SETS = {"several groups": _several_groups(), "one group each": _one_group_each()}


def test_the_sets_take_both_paths() -> None:
    assert SETS["several groups"].example_index.summing is not None  # type: ignore[union-attr]
    assert SETS["one group each"].example_index.summing is None  # type: ignore[union-attr]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(SETS)), st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
def test_leaders_are_the_top_two_of_every_agents_summed_probability(
    name: str, words: list[str],
) -> None:
    index = SETS[name].example_index
    assert index is not None
    found = index.probabilities(index.normalizer.tokens(" ".join(words)))
    if found is None:
        return
    ranked = sorted(found.agents.items(), key=lambda item: (-item[1], item[0]))
    leader, runner_up = found.leaders()
    assert leader == ranked[0]
    assert runner_up == ranked[1]
    assert index.agent_names.index("quiet") not in (leader[0], runner_up[0])
