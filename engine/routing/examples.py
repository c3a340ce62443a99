"""The examples index: example utterances compiled into TF-IDF centroids over word unigrams
and bigrams (one per agent for its own examples, one per capability it declares with
examples), stored as per-term contributions so a query costs O(its terms) (packed into one
integer a term by `engine.routing.packed` when the groups are few).

Built once per snapshot; scoring is pure. Policy and thresholds are the router's business;
explanations (nearest examples, deciding terms) live in `engine.routing.evidence`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from types import MappingProxyType

from engine.config.models import AgentSpec, CapabilitySpec
from engine.routing.normalize import Normalizer
from engine.routing.packed import PackedScores, packed_scores

DENSE = 256
"""Up to this many example groups, scores accumulate in a list (twice as fast as a dict)."""
UNSEEN = 0.5
"""An unknown word weighs half a word seen once: enough that a request made mostly of words
no example uses scores low, not so much that one name or typo sinks a clear request."""

Vector = dict[str, float]
Contribution = tuple[int, float]
"""(group, the weight a query term adds to that group's score before the norm)."""


def features(tokens: Sequence[str]) -> set[str]:
    """The terms of a token list: its words and its pairs of adjacent words."""
    found = set(tokens)
    found.update(map(" ".join, pairwise(tokens)))
    return found


@dataclass(frozen=True, slots=True)
class Example:
    """One declared example utterance: its text, the agent it routes to, its unit vector."""

    text: str
    agent: str
    vector: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class ExampleIndex:
    """Per-term contributions to each group's cosine similarity with the query; an agent
    scores the best of its groups (its own examples, each of its capabilities' examples).

    `terms[t] = (idf, ((group, idf * centroid weight), ...))`; `group_agents[g]` is the agent
    position of group `g` (an agent's groups are consecutive). A word the examples never use
    still counts in the query's norm (`unseen` is its squared weight), so a query made mostly
    of unknown words scores low; an unknown pair of words does not count. `packed` holds the
    same contributions packed for fast scoring (None with very many groups).
    """

    terms: Mapping[str, tuple[float, tuple[Contribution, ...]]]
    unseen: float
    agent_names: tuple[str, ...]
    group_agents: tuple[int, ...]
    group_names: tuple[str, ...]
    examples: tuple[Example, ...]
    normalizer: Normalizer
    packed: PackedScores | None = None
    exact: Mapping[tuple[str, ...], int] = field(default_factory=dict)
    """Each example's normalized words -> its agent's position (examples of one agent only):
    a request that is one of an agent's examples scores 1 for that agent."""

    def scores(self, tokens: Sequence[str]) -> tuple[dict[int, float], float]:
        """Agent position -> its similarity times the query's norm (its best group's dot
        product, or the norm itself when the query is one of its examples), and the norm."""
        if self.packed is not None:
            best, norm = self.packed.scores(tokens)
        else:
            best, norm = self._sparse_scores(tokens)
        agent = self.exact.get(tuple(tokens)) if self.exact else None
        if agent is not None and norm:
            best[agent] = norm
        return best, norm

    def _sparse_scores(self, tokens: Sequence[str]) -> tuple[dict[int, float], float]:
        totals, norm = self.group_scores(tokens)
        owners = self.group_agents
        best: dict[int, float] = {}
        top = best.get
        for group, value in (enumerate(totals) if isinstance(totals, list) else totals.items()):
            if value > 0.0:
                agent = owners[group]
                if value > top(agent, 0.0):
                    best[agent] = value
        return best, norm

    def group_scores(self, tokens: Sequence[str]) -> tuple[list[float] | dict[int, float], float]:
        """Each group's dot product with the query (a list by group when there are few
        groups, which is faster; else a dict of the groups touched), and the query's norm."""
        get = self.terms.get
        size = len(self.group_agents)
        dense = size <= DENSE
        totals: list[float] | dict[int, float] = [0.0] * size if dense else {}
        squared = 0.0
        for term in features(tokens):
            entry = get(term)
            if entry is None:
                if " " not in term:
                    squared += self.unseen
                continue
            idf, contributions = entry
            squared += idf * idf
            if dense:
                for group, weight in contributions:
                    totals[group] += weight
            else:
                for group, weight in contributions:
                    totals[group] = totals.get(group, 0.0) + weight  # type: ignore[union-attr]
        return totals, math.sqrt(squared)

    def vector(self, tokens: Sequence[str]) -> Vector:
        """The query's unit vector over known terms (for explanations, off the hot path)."""
        weights = {t: self.terms[t][0] for t in features(tokens) if t in self.terms}
        _, norm = self.scores(tokens)
        return {t: w / norm for t, w in weights.items()} if norm else {}


def _idf(documents: Sequence[set[str]]) -> dict[str, float]:
    frequency: dict[str, int] = {}
    for terms in documents:
        for term in terms:
            frequency[term] = frequency.get(term, 0) + 1
    size = len(documents)
    return {t: math.log((size + 1) / (n + 1)) + 1.0 for t, n in frequency.items()}


COMMON = 0.05
"""A word in more than this share of the examples is common ("i", "my", "to")."""


def _without_common_pairs(documents: list[set[str]]) -> list[set[str]]:
    """Drop the pairs made of two common words ("want to", "do i"): they say little, and a
    request's unknown pairs cost nothing, so dropping them only saves work and noise."""
    counts: dict[str, int] = {}
    for terms in documents:
        for term in terms:
            if " " not in term:
                counts[term] = counts.get(term, 0) + 1
    limit = max(2, COMMON * len(documents))
    common = {word for word, n in counts.items() if n > limit}

    def informative(term: str) -> bool:
        first, _, second = term.partition(" ")
        return not second or first not in common or second not in common

    return [{term for term in terms if informative(term)} for terms in documents]


def _unit(terms: Iterable[str], idf: Mapping[str, float]) -> Vector:
    vector = {t: idf[t] for t in terms}
    norm = math.sqrt(sum(w * w for w in vector.values()))
    return {t: w / norm for t, w in vector.items()} if norm else {}


def _centroid(vectors: Iterable[Mapping[str, float]]) -> Vector:
    summed: Vector = {}
    for vector in vectors:
        for term, weight in vector.items():
            summed[term] = summed.get(term, 0.0) + weight
    norm = math.sqrt(sum(w * w for w in summed.values()))
    return {t: w / norm for t, w in summed.items()} if norm else {}


def agent_examples(
    agents: Iterable[AgentSpec], capabilities: Mapping[str, CapabilitySpec]
) -> list[tuple[str, str, str]]:
    """(text, agent, group) for every example: the agent's own (group ""), then its
    capabilities' examples (group: the capability's name)."""
    found = []
    for agent in agents:
        found += [(text, agent.name, "") for text in agent.examples]
        for name in agent.capabilities:
            capability = capabilities.get(name)
            if capability is not None:
                found += [(text, agent.name, name) for text in capability.examples]
    return found


def build_example_index(
    agents: Sequence[AgentSpec],
    capabilities: Mapping[str, CapabilitySpec],
    *,
    normalizer: Normalizer,
) -> ExampleIndex | None:
    """The index of every agent's examples, or None when the set declares none."""
    declared = agent_examples(agents, capabilities)
    if not declared:
        return None
    documents = [features(normalizer.tokens(text)) for text, _agent, _group in declared]
    documents = _without_common_pairs(documents)
    idf = _idf(documents)
    examples = tuple(
        Example(text, agent, MappingProxyType(_unit(terms, idf)))
        for (text, agent, _group), terms in zip(declared, documents, strict=True)
    )
    names = tuple(agent.name for agent in agents)
    position = {name: n for n, name in enumerate(names)}
    groups, contributions = _centroids(examples, declared, idf, position)
    unseen = ((math.log(len(documents) + 1) + 1.0) * UNSEEN) ** 2
    # A plain dict behind the read-only `Mapping` type: lookups in a mappingproxy cost a
    # little more, and this one runs once per word of every request.
    terms = {term: (idf[term], tuple(pairs)) for term, pairs in contributions.items()}
    group_agents = tuple(position[agent] for agent, _group in groups)
    return ExampleIndex(
        terms=terms,
        unseen=unseen,
        agent_names=names,
        group_agents=group_agents,
        group_names=tuple(group for _agent, group in groups),
        examples=examples,
        normalizer=normalizer,
        packed=packed_scores(terms, group_agents, unseen=unseen),
        exact=_exact(declared, normalizer, position),
    )


def _centroids(
    examples: Sequence[Example],
    declared: Sequence[tuple[str, str, str]],
    idf: Mapping[str, float],
    position: Mapping[str, int],
) -> tuple[list[tuple[str, str]], dict[str, list[Contribution]]]:
    """The example groups as (agent, group), numbered agent by agent (declaration order
    within an agent), and each term's contributions to their centroids."""
    found: dict[tuple[str, str], list[Mapping[str, float]]] = {}
    for (_text, agent, group), example in zip(declared, examples, strict=True):
        found.setdefault((agent, group), []).append(example.vector)
    groups = sorted(found, key=lambda key: position[key[0]])
    contributions: dict[str, list[Contribution]] = {}
    for number, key in enumerate(groups):
        for term, weight in _centroid(found[key]).items():
            contributions.setdefault(term, []).append((number, idf[term] * weight))
    return groups, contributions


def _exact(
    declared: Sequence[tuple[str, str, str]], normalizer: Normalizer, position: Mapping[str, int]
) -> Mapping[tuple[str, ...], int]:
    """Normalized example -> its agent's position, leaving out one said for several agents."""
    owners: dict[tuple[str, ...], set[int]] = {}
    for text, agent, _group in declared:
        owners.setdefault(tuple(normalizer.tokens(text)), set()).add(position[agent])
    return MappingProxyType({words: min(agents) for words, agents in owners.items()
                             if words and len(agents) == 1})
