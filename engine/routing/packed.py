"""The examples layer's hot path: every term's contributions to every example group packed
into one integer, so scoring a request is one integer addition per term, whatever the number
of groups that use it.

Group `g` owns bits `64*g .. 64*g+63` of a term's integer, holding its contribution as a
fixed-point number (`SCALE` units per 1.0). Contributions are never negative and a request
cannot hold enough terms to carry one field into the next, so the sum of a request's integers
holds each group's exact total. Integer sums do not depend on the order of the terms: the
scores are the same on every run and every machine. Built once per snapshot; pure.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

SCALE = float(1 << 30)
"""Fixed-point units per 1.0. A contribution is below 2**5 (an idf of at most ~25 times a
unit-vector weight), so a field holds more than 2**29 contributions before it would carry."""
BITS = 64
MAX_GROUPS = 128
"""Above this many groups the integers grow too large (bytes per term = 8 x groups): the
index keeps the sparse lists instead."""

Entry = tuple[float, int]
"""(the term's squared weight in a request's norm, its packed contributions)."""


@dataclass(frozen=True, slots=True)
class PackedScores:
    """Packed contributions of single words (`words`) and of word pairs (`pairs[first]
    [second]`), and the groups of each agent as `(agent, first group, end)` spans (an agent's
    groups are consecutive)."""

    words: Mapping[str, Entry]
    pairs: Mapping[str, Mapping[str, Entry]]
    spans: tuple[tuple[int, int, int], ...]
    layout: struct.Struct
    unseen: float

    def scores(self, tokens: Sequence[str]) -> tuple[dict[int, float], float]:
        """Agent position -> its best group's dot product with the request, and the
        request's norm. Each distinct word and pair counts once; an unknown word adds
        `unseen` to the norm, an unknown pair nothing."""
        words, pairs = self.words.get, self.pairs.get
        unseen, total, squared = self.unseen, 0, 0.0
        distinct = dict.fromkeys(tokens)
        for word in distinct:
            entry = words(word)
            if entry is None:
                squared += unseen
            else:
                squared += entry[0]
                total += entry[1]
        adjacent: Iterable[tuple[str, str]] = pairwise(tokens)
        if len(distinct) != len(tokens):  # a repeated word may repeat a pair: count it once
            adjacent = dict.fromkeys(adjacent)
        for first, second in adjacent:
            following = pairs(first)
            if following is not None:
                entry = following.get(second)
                if entry is not None:
                    squared += entry[0]
                    total += entry[1]
        return self.best(total), math.sqrt(squared)

    def best(self, total: int) -> dict[int, float]:
        """Agent position -> the highest of its groups' totals (agents at zero left out)."""
        if not total:
            return {}
        fields = self._fields(total)
        found: dict[int, float] = {}
        for agent, start, end in self.spans:
            top = max(fields[start:end])
            if top:
                found[agent] = top / SCALE
        return found

    def _fields(self, total: int) -> tuple[int, ...]:
        """The groups' fixed-point totals held in a packed sum."""
        return self.layout.unpack(total.to_bytes(self.layout.size, "little"))

    def totals(self, tokens: Sequence[str]) -> list[float]:
        """Every group's dot product with the request (for explanations)."""
        total = 0
        for word in dict.fromkeys(tokens):
            entry = self.words.get(word)
            total += 0 if entry is None else entry[1]
        for first, second in dict.fromkeys(pairwise(tokens)):
            entry = self.pairs.get(first, {}).get(second)
            total += 0 if entry is None else entry[1]
        return [value / SCALE for value in self._fields(total)]


def pack(contributions: Sequence[tuple[int, float]]) -> int:
    """One term's (group, weight) contributions as a packed integer."""
    packed = 0
    for group, weight in contributions:
        packed |= round(weight * SCALE) << (BITS * group)
    return packed


def packed_scores(
    terms: Mapping[str, tuple[float, Sequence[tuple[int, float]]]],
    group_agents: Sequence[int],
    *,
    unseen: float,
) -> PackedScores | None:
    """The packed table of an index's terms, or None when it has too many groups. Groups
    must be numbered so that each agent's groups are consecutive."""
    size = len(group_agents)
    if size > MAX_GROUPS:
        return None
    spans: list[tuple[int, int, int]] = []
    for group, agent in enumerate(group_agents):
        if spans and spans[-1][0] == agent:
            spans[-1] = (agent, spans[-1][1], group + 1)
        else:
            spans.append((agent, group, group + 1))
    if len({agent for agent, _start, _end in spans}) != len(spans):
        raise ValueError("an agent's example groups must be numbered consecutively")
    words: dict[str, Entry] = {}
    pairs: dict[str, dict[str, Entry]] = {}
    for term, (weight, contributions) in terms.items():
        entry = (weight * weight, pack(contributions))
        first, _, second = term.partition(" ")
        if second:
            pairs.setdefault(first, {})[second] = entry
        else:
            words[term] = entry
    return PackedScores(words, pairs, tuple(spans), struct.Struct(f"<{size}Q"), unseen)
