"""The agents the keyword layer found, best first, a score at a time: a decision reads the first
few (the best allowed agent), so ranking the thousands of agents that may share a popular
capability is left to an explanation that asks for them.

An agent's score is how many of the matched capabilities it declares. The index keeps one bit
mask per capability (bit `p` set: the agent at position `p` declares it), so the agents that
declare at least `s` of them are a few mask operations away, whatever the number of agents that
share the capabilities: the work grows with the matched capabilities, not with their holders.

Pure; the masks come from `KeywordIndex.ranking`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload


def _at_least(masks: Iterable[int]) -> list[int]:
    """`found[s - 1]`: the agents that declare at least `s` of the capabilities whose masks are
    given, for every `s` that some agent reaches (the last level is never empty)."""
    found: list[int] = []
    for mask in masks:
        # An agent reaches s + 1 with this capability if it reached s without it; counting
        # down so each level reads the level below as it was before this mask.
        if found and found[-1] & mask:
            found.append(found[-1] & mask)
        for level in range(len(found) - 1, 0, -1):
            found[level] |= found[level - 1] & mask
        if found:
            found[0] |= mask
        elif mask:
            found.append(mask)
    return found


def _positions(mask: int) -> Iterator[int]:
    """The set bits of `mask`, lowest (first declared agent) first."""
    while mask:
        lowest = mask & -mask
        yield lowest.bit_length() - 1
        mask ^= lowest


class Ranking:
    """Agent positions by score, highest first, declaration order within a score."""

    __slots__ = ("_at_least", "_levels", "_lock", "_ranked", "_scores")

    def __init__(self, masks: Iterable[int]) -> None:
        self._at_least = _at_least(masks)
        self._ranked: list[int] = []
        self._scores: dict[int, int] = {}
        self._levels = self._by_level()
        self._lock = threading.Lock()  # a decision's candidates may be read from two threads

    def _by_level(self) -> Iterator[tuple[int, list[int]]]:
        """Each score, highest first, with the agents that have exactly that score."""
        above = 0
        for score in range(len(self._at_least), 0, -1):
            mask = self._at_least[score - 1]
            yield score, list(_positions(mask & ~above))
            above = mask

    def __iter__(self) -> Iterator[int]:
        shown = 0
        while True:
            while shown < len(self._ranked):
                yield self._ranked[shown]
                shown += 1
            if not self._next_level() and shown == len(self._ranked):
                return  # (another thread may have ranked the last level meanwhile)

    def _next_level(self) -> bool:
        """Rank the agents of the next lower score; False when every agent is ranked."""
        with self._lock:
            level = next(self._levels, None)
            if level is None:
                return False
            score, positions = level
            self._scores.update(dict.fromkeys(positions, score))
            self._ranked += positions
            return True

    def __len__(self) -> int:
        """How many agents declare at least one of the capabilities."""
        return self._at_least[0].bit_count() if self._at_least else 0

    @property
    def scores(self) -> Mapping[int, int]:
        """Position -> score (how many of the capabilities the agent declares) for the agents
        ranked so far: whole score levels, as far as iteration has gone (every agent after
        `all()`)."""
        return self._scores

    def after(self, count: int) -> Sequence[int]:
        """The agents ranked below the first `count` (ranked when read)."""
        return _Rest(self, count)

    def all(self) -> list[int]:
        while self._next_level():
            pass
        return self._ranked


class _Rest(Sequence[int]):
    """The tail of a ranking: its length is known at once, its items when read."""

    __slots__ = ("_ranking", "_start")

    def __init__(self, ranking: Ranking, start: int) -> None:
        self._ranking, self._start = ranking, start

    def __len__(self) -> int:
        return len(self._ranking) - self._start

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        return self._ranking.all()[self._start:][index]

    def __iter__(self) -> Iterator[int]:
        return iter(self._ranking.all()[self._start:])
