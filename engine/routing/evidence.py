"""What the examples layer saw for one request: the closest agents, the margin, the terms that
decided and the nearest declared examples.

The router fills the scores; everything else is computed on first read, so a decision that is
never explained costs nothing more. Pure; no policy here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.routing.examples import ExampleIndex

_TERMS = 5


class NearestExample(NamedTuple):
    """A declared example close to the request: its text, its agent, cosine similarity."""

    text: str
    agent: str
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "agent": self.agent, "similarity": round(self.similarity, 4)}


class ExampleMatch:
    """The examples layer's view of one request. `score` is the cosine similarity of the
    request to the best agent's centroid, `margin` its lead over the runner-up."""

    __slots__ = ("_built", "_index", "_norm", "_scores", "_tokens", "agent", "limit",
                 "runner_up", "score", "second")

    def __init__(
        self,
        index: ExampleIndex,
        tokens: Sequence[str],
        scores: Mapping[int, float],
        norm: float,
        *,
        best: int,
        second: int | None,
        limit: int,
    ) -> None:
        self._index, self._tokens, self._scores, self._norm = index, tokens, scores, norm
        names = index.agent_names
        self.agent = names[best]
        self.score = scores[best] / norm
        self.second = None if second is None else names[second]
        self.runner_up = 0.0 if second is None else scores[second] / norm
        self.limit = limit
        self._built: dict[str, Any] = {}

    @property
    def margin(self) -> float:
        return self.score - self.runner_up

    def similarity(self, agent: str) -> float:
        """`agent`'s similarity to the request (0 when none of its examples shares a term)."""
        names = self._index.agent_names
        return self.similarity_at(names.index(agent)) if agent in names else 0.0

    def similarity_at(self, position: int) -> float:
        """The similarity of the agent at `position` (declaration order)."""
        return self._scores.get(position, 0.0) / self._norm

    @property
    def ranked(self) -> tuple[tuple[str, float], ...]:
        """Every agent with a non-zero similarity, best first (declaration order on ties)."""
        if "ranked" not in self._built:
            names, norm = self._index.agent_names, self._norm
            order = sorted(self._scores.items(), key=lambda item: (-item[1], item[0]))
            self._built["ranked"] = tuple((names[p], s / norm) for p, s in order)
        ranked: tuple[tuple[str, float], ...] = self._built["ranked"]
        return ranked

    @property
    def terms(self) -> tuple[tuple[str, float], ...]:
        """The request's terms that put the winner ahead of the runner-up, strongest first,
        each with its share of the winner's lead."""
        if "terms" not in self._built:
            self._built["terms"] = self._deciding_terms()
        terms: tuple[tuple[str, float], ...] = self._built["terms"]
        return terms

    def _deciding_terms(self) -> tuple[tuple[str, float], ...]:
        best = self._best_group(self.agent)
        second = None if self.second is None else self._best_group(self.second)
        lead: list[tuple[str, float]] = []
        for term in sorted(self._index.vector(self._tokens)):
            weights = dict(self._index.terms[term][1])
            behind = 0.0 if second is None else weights.get(second, 0.0)
            share = (weights.get(best, 0.0) - behind) / self._norm
            if share > 0:
                lead.append((term, share))
        lead.sort(key=lambda item: (-item[1], item[0]))
        return tuple(lead[:_TERMS])

    def _best_group(self, agent: str) -> int:
        """The example group that gave `agent` its score."""
        index = self._index
        position = index.agent_names.index(agent)
        totals, _ = index.group_scores(self._tokens)
        pairs = enumerate(totals) if isinstance(totals, list) else totals.items()
        mine = [(value, -group) for group, value in pairs
                if index.group_agents[group] == position]
        return -max(mine)[1] if mine else -1

    @property
    def nearest(self) -> tuple[NearestExample, ...]:
        """The declared examples most similar to the request (cosine), best first."""
        if "nearest" not in self._built:
            self._built["nearest"] = tuple(self._similar(None)[: self.limit])
        nearest: tuple[NearestExample, ...] = self._built["nearest"]
        return nearest

    def closest(self, agent: str) -> NearestExample | None:
        """The example of `agent` most similar to the request, if any shares a term."""
        found = self._similar(agent)
        return found[0] if found else None

    def _similar(self, agent: str | None) -> list[NearestExample]:
        query = self._index.vector(self._tokens)
        found = []
        for example in self._index.examples:
            if agent is not None and example.agent != agent:
                continue
            similarity = sum(w * example.vector.get(t, 0.0) for t, w in query.items())
            if similarity > 0:
                found.append(NearestExample(example.text, example.agent, similarity))
        found.sort(key=lambda e: (-e.similarity, e.agent, e.text))
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "score": round(self.score, 4),
            "runner_up": self.second,
            "runner_up_score": round(self.runner_up, 4),
            "margin": round(self.margin, 4),
            "terms": [{"term": t, "weight": round(w, 4)} for t, w in self.terms],
            "nearest": [example.to_dict() for example in self.nearest],
        }

    def __repr__(self) -> str:
        return f"ExampleMatch({self.agent!r}, score={self.score:.3f}, margin={self.margin:.3f})"
