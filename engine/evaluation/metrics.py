"""Counting routing outcomes against expected agents: confusion matrix, per-agent precision,
recall and F1, no-route and false-transfer rates, latency percentiles from a bounded sample.

Pure accumulation over (expected, predicted) pairs; nothing here routes or reads files.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SAMPLE = 100_000
"""Latencies kept for percentiles (a uniform reservoir sample beyond that)."""


@dataclass(frozen=True, slots=True)
class AgentScore:
    agent: str
    support: int
    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "support": self.support,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4)}


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


@dataclass(slots=True)
class Tally:
    """Outcomes of routed rows. A row that is not routed stays with its sender, so its
    predicted agent is the sender; a *transfer* row expects an agent other than its sender;
    a *false transfer* is a row that should stay but was routed away."""

    agents: tuple[str, ...]
    rows: int = 0
    correct: int = 0
    no_route: int = 0
    stay_rows: int = 0
    false_transfers: int = 0
    transfer_rows: int = 0
    transfers_right: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    _seen_latencies: int = 0
    _rng: random.Random = field(default_factory=lambda: random.Random(0))

    def add(self, expected: str, sender: str, target: str | None, micros: float) -> None:
        predicted = sender if target is None else target
        self.rows += 1
        self.correct += predicted == expected
        self.no_route += target is None
        if expected == sender:
            self.stay_rows += 1
            self.false_transfers += target is not None
        else:
            self.transfer_rows += 1
            self.transfers_right += predicted == expected
        self.confusion[expected, predicted] += 1
        self._sample(micros)

    def _sample(self, micros: float) -> None:
        self._seen_latencies += 1
        if len(self.latencies) < SAMPLE:
            self.latencies.append(micros)
            return
        slot = self._rng.randrange(self._seen_latencies)
        if slot < SAMPLE:
            self.latencies[slot] = micros

    @property
    def accuracy(self) -> float:
        return _ratio(self.correct, self.rows)

    @property
    def transfer_recall(self) -> float:
        """Of the rows that belong to another agent than their sender, the share routed there."""
        return _ratio(self.transfers_right, self.transfer_rows)

    @property
    def false_transfer_rate(self) -> float:
        return _ratio(self.false_transfers, self.stay_rows)

    @property
    def no_route_rate(self) -> float:
        return _ratio(self.no_route, self.rows)

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]

    def scores(self) -> list[AgentScore]:
        """Precision, recall and F1 of every agent that was expected or predicted."""
        expected, predicted = Counter[str](), Counter[str]()
        for (truth, guess), count in self.confusion.items():
            expected[truth] += count
            predicted[guess] += count
        named = [a for a in self.agents if a in expected or a in predicted]
        result = []
        for agent in named:
            hits = self.confusion[agent, agent]
            precision = _ratio(hits, predicted[agent])
            recall = _ratio(hits, expected[agent])
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            result.append(AgentScore(agent, expected[agent], precision, recall, f1))
        return result

    @property
    def macro_f1(self) -> float:
        """The mean F1 of the agents rows expected (each agent counts once, whatever its
        number of rows)."""
        found = [score.f1 for score in self.scores() if score.support]
        return sum(found) / len(found) if found else 0.0

    def recall_of(self, agent: str) -> float:
        total = sum(count for (truth, _), count in self.confusion.items() if truth == agent)
        return _ratio(self.confusion[agent, agent], total)
