"""The keyword layer's ranking: an agent's score is how many of the matched capabilities it
declares; best score first, declaration order within a score, built a score at a time from one
bit mask per capability; the same order and scores a full count and sort give."""

from __future__ import annotations

import sys
import threading
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from engine.routing.ranking import Ranking


def _mask(positions: set[int]) -> int:
    return sum(1 << position for position in positions)


@given(st.lists(st.sets(st.integers(0, 200), max_size=40), max_size=6))
def test_the_order_and_scores_of_a_full_count_and_sort(holders: list[set[int]]) -> None:
    scores = Counter(position for positions in holders for position in positions)
    expected = sorted(scores, key=lambda position: (-scores[position], position))
    masks = [_mask(positions) for positions in holders]
    ranking = Ranking(masks)
    assert list(ranking) == expected
    assert ranking.scores == scores
    assert len(ranking) == len(expected)
    assert Ranking(masks).all() == expected
    for start in range(len(expected) + 1):
        rest = Ranking(masks).after(start)
        assert len(rest) == len(expected) - start
        assert list(rest) == expected[start:]


def test_reading_the_best_ranks_only_the_best_score() -> None:
    everyone, pair = _mask(set(range(10_000))), _mask({42, 7})
    ranking = Ranking([everyone, pair])
    first = next(iter(ranking))
    assert first == 7 and ranking.scores == {7: 2, 42: 2}  # the lower score is not ranked yet
    rest = ranking.after(1)
    assert len(rest) == 9_999 and len(ranking.scores) == 2  # counted, not ranked
    assert rest[-1] == 9_999 and ranking.scores[9_999] == 1  # ranked when read


def test_threads_reading_one_ranking_each_see_every_agent_once_in_order() -> None:
    masks = [_mask(set(range(0, 3_000, 2))), _mask(set(range(0, 3_000, 3))),
             _mask(set(range(0, 3_000, 7)))]
    expected = Ranking(masks).all()
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # let the threads interleave inside the ranking
    try:
        for _ in range(20):
            shared, seen = Ranking(masks), []
            threads = [threading.Thread(target=lambda r=shared, s=seen: s.append(list(r)))
                       for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert seen == [expected] * 4
    finally:
        sys.setswitchinterval(before)
