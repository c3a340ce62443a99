"""The agents the keyword layer found, best first, built a score at a time: a decision reads
the first few (the best allowed agent), so ranking the thousands of agents that may share a
popular capability is left to an explanation that asks for them.

Pure; scores come from `KeywordIndex.score`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import overload


class Ranking:
    """Agent positions by score, highest first, declaration order within a score."""

    __slots__ = ("_done", "_levels", "_ranked", "scores")

    def __init__(self, scores: Mapping[int, int]) -> None:
        self.scores = scores
        self._ranked: list[int] = []
        self._levels: list[int] | None = None
        self._done = 0  # levels ranked so far

    def __iter__(self) -> Iterator[int]:
        shown = 0
        while True:
            while shown < len(self._ranked):
                yield self._ranked[shown]
                shown += 1
            if not self._next_level():
                return

    def _next_level(self) -> bool:
        """Rank the agents of the next lower score; False when every agent is ranked."""
        if self._levels is None:
            self._levels = sorted(set(self.scores.values()), reverse=True)
        if self._done == len(self._levels):
            return False
        level = self._levels[self._done]
        self._done += 1
        self._ranked += sorted(p for p, score in self.scores.items() if score == level)
        return True

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
        return len(self._ranking.scores) - self._start

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        return self._ranking.all()[self._start:][index]

    def __iter__(self) -> Iterator[int]:
        return iter(self._ranking.all()[self._start:])
