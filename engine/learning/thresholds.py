"""Choosing the examples layer's `min_score` and `margin` for a learned set: each candidate pair
is learned with on one part of the training rows and scored on the other; the most accurate
pair wins (ties: the larger, more cautious values).

Pure over models and rows; the learning itself is `engine.learning.learn`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.config.snapshot import Snapshot, compile_snapshot
from engine.evaluation.corpus import Row
from engine.evaluation.run import evaluate
from engine.routing.router import Router

MIN_SCORES = (0.05, 0.1, 0.15)
MARGINS = (0.02, 0.03, 0.05)
VALIDATION = 0.2
"""Share of the training rows each candidate is scored on."""


@dataclass(frozen=True, slots=True, order=True)
class Thresholds:
    """An examples-layer `min_score` and `margin`."""

    min_score: float
    margin: float


def thresholds_of(snapshot: Snapshot) -> Thresholds:
    settings = snapshot.config.engine.examples
    return Thresholds(settings.min_score, settings.margin)


def with_thresholds(snapshot: Snapshot, chosen: Thresholds) -> Snapshot:
    """`snapshot` recompiled with the examples layer answering at `chosen`."""
    engine = snapshot.config.engine
    examples = engine.examples.model_copy(
        update={"min_score": chosen.min_score, "margin": chosen.margin})
    config = snapshot.config.model_copy(
        update={"engine": engine.model_copy(update={"examples": examples})})
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


Learner = Callable[[Snapshot, Sequence[Row]], Snapshot]
"""Learns from rows into a new snapshot (examples and keywords added)."""
Splitter = Callable[[Sequence[Row], Snapshot, float], tuple[list[Row], list[Row]]]


def choose_thresholds(
    snapshot: Snapshot, rows: Sequence[Row], *, learner: Learner, splitter: Splitter
) -> tuple[Thresholds, float]:
    """The candidate (and the set's own thresholds) whose learned set routes the validation
    part of `rows` best, and that accuracy. Too few rows to hold some out: the set's own."""
    own = thresholds_of(snapshot)
    fit, check = splitter(rows, snapshot, VALIDATION)
    if not fit or not check:
        return own, 0.0
    candidates = sorted({own, *(Thresholds(s, m) for s in MIN_SCORES for m in MARGINS)})
    names = tuple(snapshot.agents)
    scored = []
    for candidate in candidates:
        learned = learner(with_thresholds(snapshot, candidate), fit)
        tally = evaluate(Router(learned), check, agents=names, worst=0).tally
        scored.append((round(tally.accuracy, 6), candidate))
    accuracy, best = max(scored)
    return best, accuracy
