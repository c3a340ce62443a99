"""Routing every row of a corpus and keeping what a report needs: the tally, the keywords,
rules and examples behind wrong transfers, and the worst misses with their explanation.

Memory stays bounded whatever the corpus size: counters, a latency sample and a small heap.
"""

from __future__ import annotations

import heapq
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.evaluation.corpus import Row
from engine.evaluation.metrics import Tally
from engine.routing.decision import Layer, RouteDecision, RouteRequest
from engine.routing.router import Router

Trigger = tuple[str, str, str]
"""What sent a request to the wrong agent: (layer, rule id / keyword / example, target)."""


@dataclass(frozen=True, slots=True)
class Miss:
    """One wrongly routed row, with the decision's explanation in one line."""

    line: int
    text: str
    expected: str
    got: str
    layer: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text, "expected": self.expected,
                "got": self.got, "layer": self.layer, "why": self.why}


@dataclass(slots=True)
class Evaluation:
    """Everything measured on one corpus. `wrong[t]` counts the transfers to a wrong agent
    that `t` caused, `false[t]` those of rows that should have stayed with their sender."""

    tally: Tally
    wrong: Counter[Trigger] = field(default_factory=Counter)
    false: Counter[Trigger] = field(default_factory=Counter)
    worst: list[tuple[tuple[int, float, int], Miss]] = field(default_factory=list)
    limit: int = 10

    def misses(self) -> list[Miss]:
        """The worst misses, worst first: false transfers, then wrong desks, then calls that
        stayed; within each, the most confident decisions first."""
        return [miss for _, miss in sorted(self.worst, reverse=True)]


def _triggers(decision: RouteDecision) -> list[tuple[str, str]]:
    """The keyword(s), rule or example that produced a decision."""
    layer = decision.layer
    if layer is Layer.rule:
        return [("rule", decision.rule or "")]
    if layer is Layer.keyword:
        return [("keyword", keyword) for keyword in decision.matched_keywords]
    if layer is Layer.example and decision.examples is not None:
        closest = decision.examples.closest(decision.target or "")
        return [("example", closest.text if closest else "")]
    return [(layer.value if layer else "none", decision.target or "")]


def explain_line(decision: RouteDecision) -> str:
    """What decided, in one line: the rule, keywords or nearest examples and their scores."""
    parts = [f"layer {decision.layer.value if decision.layer else 'none'}"]
    if decision.rule:
        parts.append(f"rule {decision.rule}")
    if decision.matched_keywords:
        parts.append("keywords " + ", ".join(decision.matched_keywords))
    match = decision.examples
    if match is not None:
        runner = f", runner-up {match.second} {match.runner_up:.2f}" if match.second else ""
        parts.append(f"examples: {match.agent} {match.score:.2f}{runner}")
        terms = ", ".join(term for term, _ in match.terms)
        if terms:
            parts.append(f"terms {terms}")
        if match.nearest:
            near = match.nearest[0]
            parts.append(f"nearest {near.agent}: {near.text!r} ({near.similarity:.2f})")
    return "; ".join(parts)


def _severity(row: Row, decision: RouteDecision) -> tuple[int, float, int]:
    kind = 1 if decision.target is None else 3 if row.agent == row.sender else 2
    score = decision.examples.score if decision.examples is not None else 0.0
    if decision.layer is Layer.rule:
        score = 1.0 + (decision.candidates[-1].score if decision.candidates else 0)
    return (kind, float(score), -row.line)


def _record_miss(evaluation: Evaluation, row: Row, decision: RouteDecision) -> None:
    if decision.target is not None:
        for layer, item in _triggers(decision):
            key = (layer, item, decision.target)
            evaluation.wrong[key] += 1
            if row.agent == row.sender:
                evaluation.false[key] += 1
    rank = _severity(row, decision)
    heap = evaluation.worst
    if evaluation.limit <= 0 or (len(heap) >= evaluation.limit and rank <= heap[0][0]):
        return
    got = decision.target or f"{row.sender} (not routed)"
    layer = decision.layer.value if decision.layer else "none"
    miss = Miss(row.line, row.text, row.agent, got, layer, explain_line(decision))
    if len(heap) < evaluation.limit:
        heapq.heappush(heap, (rank, miss))
    else:
        heapq.heapreplace(heap, (rank, miss))


def evaluate(
    router: Router, rows: Iterable[Row], *, agents: tuple[str, ...], worst: int = 10
) -> Evaluation:
    """Route every row from its sender and tally the outcome against its expected agent."""
    evaluation = Evaluation(Tally(agents), limit=worst)
    clock = time.perf_counter_ns
    route = router.route
    for row in rows:
        request = RouteRequest(row.sender, row.text, context=row.context)
        started = clock()
        decision = route(request)
        micros = (clock() - started) / 1000
        expected = row.expected(decision.target)
        evaluation.tally.add(expected, row.sender, decision.target, micros)
        predicted = decision.target or row.sender
        if predicted != expected:
            _record_miss(evaluation, row, decision)
    return evaluation
