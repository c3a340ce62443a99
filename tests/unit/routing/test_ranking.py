"""The keyword layer's ranking: best score first, declaration order within a score, built a
score at a time; the same order a full sort gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.routing.ranking import Ranking


@given(st.dictionaries(st.integers(0, 200), st.integers(1, 4), max_size=60))
def test_the_order_of_a_full_sort(scores: dict[int, int]) -> None:
    expected = sorted(scores, key=lambda position: (-scores[position], position))
    ranking = Ranking(scores)
    assert list(ranking) == expected
    assert Ranking(scores).all() == expected
    for start in range(len(expected) + 1):
        rest = Ranking(scores).after(start)
        assert len(rest) == len(expected) - start
        assert list(rest) == expected[start:]


def test_reading_the_best_ranks_only_the_best_score() -> None:
    scores = {position: 1 for position in range(10_000)} | {42: 2, 7: 2}
    ranking = Ranking(scores)
    first = next(iter(ranking))
    assert first == 7 and ranking._done == 1  # one score level ranked, not ten thousand agents
    assert len(ranking.after(1)) == 9_999
