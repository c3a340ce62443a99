"""What the examples layer saw for one request: each agent's probability, the most probable two,
the terms that decided between them and the nearest declared examples.

The router fills the probabilities; everything else is computed on first read, so a decision
that is never explained costs nothing more. Pure; no policy here.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any, NamedTuple

from engine.routing.examples import ExampleIndex
from engine.routing.probabilities import Probabilities

_TERMS = 5


class NearestExample(NamedTuple):
    """A declared example close to the request: its text, its agent, cosine similarity."""

    text: str
    agent: str
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "agent": self.agent, "similarity": round(self.similarity, 4)}


class ExampleMatch:
    """The examples layer's view of one request. `score` is the most probable agent's
    calibrated probability, `margin` its lead over the runner-up's; `informative` says whether
    the request holds a known word that is not a stop word."""

    __slots__ = ("_built", "_found", "_index", "_tokens", "agent", "informative", "limit",
                 "runner_up", "score", "second")

    def __init__(
        self, index: ExampleIndex, found: Probabilities, *, limit: int
    ) -> None:
        self._index, self._tokens, self._found = index, found.tokens, found
        (best, self.score), runner_up = found.leaders()
        names = index.agent_names
        self.agent = names[best]
        self.second = names[runner_up[0]] if runner_up is not None else None
        self.runner_up = runner_up[1] if runner_up is not None else 0.0
        self.informative = found.informative
        self.limit = limit
        self._built: dict[str, Any] = {}

    @property
    def margin(self) -> float:
        return self.score - self.runner_up

    @property
    def mended(self) -> tuple[str, ...] | None:
        """The request's normalized words as scored, when mending changed them (else None)."""
        return tuple(self._tokens) if self._found.mended else None

    def similarity(self, agent: str) -> float:
        """`agent`'s probability (0 for an agent without examples)."""
        names = self._index.agent_names
        return self.similarity_at(names.index(agent)) if agent in names else 0.0

    def similarity_at(self, position: int) -> float:
        """The probability of the agent at `position` (declaration order)."""
        return self._found.agents.get(position, 0.0)

    @property
    def ranked(self) -> tuple[tuple[str, float], ...]:
        """Every agent with examples and its probability, most probable first."""
        if "ranked" not in self._built:
            names = self._index.agent_names
            order = sorted(self._found.agents.items(), key=lambda item: (-item[1], item[0]))
            self._built["ranked"] = tuple((names[p], s) for p, s in order)
        ranked: tuple[tuple[str, float], ...] = self._built["ranked"]
        return ranked

    @property
    def terms(self) -> tuple[tuple[str, float], ...]:
        """The request's words and pairs that put the winner ahead of the runner-up, strongest
        first, each with what it adds to the winner's lead in score."""
        if "terms" not in self._built:
            self._built["terms"] = self._deciding_terms()
        terms: tuple[tuple[str, float], ...] = self._built["terms"]
        return terms

    def _deciding_terms(self) -> tuple[tuple[str, float], ...]:
        best = self._best_group(self.agent)
        second = None if self.second is None else self._best_group(self.second)
        model, norm = self._index.model, self._found.norm or 1.0
        lead: list[tuple[str, float]] = []
        for term in sorted(_words_and_pairs(self._tokens)):
            weights = model.contributions(term)
            behind = 0.0 if second is None else weights[second]
            share = (weights[best] - behind) / norm
            if share > 0:
                lead.append((term, share))
        lead.sort(key=lambda item: (-item[1], item[0]))
        return tuple(lead[:_TERMS])

    def _best_group(self, agent: str) -> int:
        """The example group of `agent` with the highest score."""
        index = self._index
        position = index.agent_names.index(agent)
        mine = [(value, -group) for group, value in enumerate(self._found.groups)
                if index.group_agents[group] == position]
        return -max(mine)[1]

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
        examples = self._index.examples if agent is None else self._index.examples_of(agent)
        for example in examples:
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
            "informative": self.informative,
            "mended": list(self.mended) if self.mended is not None else None,
            "terms": [{"term": t, "weight": round(w, 4)} for t, w in self.terms],
            "nearest": [example.to_dict() for example in self.nearest],
        }

    def __repr__(self) -> str:
        return f"ExampleMatch({self.agent!r}, score={self.score:.3f}, margin={self.margin:.3f})"


def _words_and_pairs(tokens: Sequence[str]) -> set[str]:
    found = set(tokens)
    found.update(f"{first} {second}" for first, second in pairwise(tokens))
    return found
