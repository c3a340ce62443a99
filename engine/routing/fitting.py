"""Fitting the examples layer's linear model: a multiclass passive-aggressive learner (on each
example the model gets wrong by less than a margin of 1, the true class and the strongest
wrong class move apart by just enough), with averaged weights.

Weights are 64-bit fixed-point integers in one numpy matrix (a row per term, a column per
class): scoring an example sums its terms' rows, an update moves two columns of them. Integer
sums do not depend on their order and every float step is elementwise (no reductions), and the
example order comes from a seeded shuffle: the same examples give the same weights on every
machine. The compiled form a router scores with is `engine.routing.linear`'s. Pure.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SCALE = 1 << 30
"""Fixed-point units per 1.0 of a term's weighted contribution."""
EPOCHS = 6
AVERAGE_FROM = 2
"""Weights are averaged over snapshots taken from this epoch on..."""
SNAPSHOTS = 2
"""...this many per epoch (averaging every step would overflow the fields; more snapshots
measured no more accurate on real corpora, and each costs a pass over every term)."""
AGGRESSIVENESS = 0.5
"""The most one update may move (PA-I's C)."""
SEED = 0


@dataclass(frozen=True, slots=True)
class Example:
    """One example as the learner sees it: its term numbers, each term's gain (how far a unit
    update moves that term's field: SCALE * weight**2 / norm), its norm, and its class."""

    terms: tuple[int, ...]
    gains: tuple[float, ...]
    norm: float
    label: int


@dataclass(frozen=True, slots=True)
class Weights:
    """The averaged model: an int64 numpy matrix, a row per term, whose cell `c` is `unit` times
    the term's weight times its weight for class `c` (its contribution to `norm * score_c`),
    and per class the bias in the same units."""

    matrix: Any
    bias: tuple[int, ...]
    unit: int


def fit(examples: Sequence[Example], *, terms: int, classes: int) -> Weights:
    """The averaged passive-aggressive weights of `classes` classes over `terms` terms."""
    import numpy as np  # imported by the sets that have examples, when they compile

    fields = np.zeros((terms, classes), dtype=np.int64)
    bias = np.zeros(classes, dtype=np.int64)
    summed, summed_bias, taken = np.zeros_like(fields), np.zeros_like(bias), 0
    rows = [(np.array(e.terms, dtype=np.intp), np.array(e.gains), e.norm, e.label)
            for e in examples]
    order = list(range(len(examples)))
    shuffle = random.Random(SEED).shuffle
    every = max(1, len(examples) // SNAPSHOTS)
    for epoch in range(EPOCHS):
        shuffle(order)
        for step, number in enumerate(order, 1):
            _update(*rows[number], fields, bias)
            if epoch >= AVERAGE_FROM and step % every == 0:
                summed += fields
                summed_bias += bias
                taken += 1
    if not taken:  # too few examples to reach a snapshot: the last weights
        summed, summed_bias, taken = fields, bias, 1
    return Weights(summed, tuple(int(b) for b in summed_bias), SCALE * taken)


def _update(terms: Any, gains: Any, norm: float, label: int, fields: Any, bias: Any) -> None:
    """One passive-aggressive step on an example (nothing when it is right by a margin of 1)."""
    scores = fields[terms].sum(axis=0) + bias * norm
    right = float(scores[label])
    scores[label] = -math.inf
    rival = int(scores.argmax())
    loss = 1.0 - (right - float(scores[rival])) / (SCALE * norm)
    if loss <= 0.0:
        return
    step = min(AGGRESSIVENESS, loss / 4)  # |x|**2 = 1 (unit vector) + 1 (bias), twice
    moved = (step * gains).round().astype(fields.dtype)  # half to even, as round() does
    fields[terms, label] += moved
    fields[terms, rival] -= moved
    moved_bias = round(step * SCALE)
    bias[label] += moved_bias
    bias[rival] -= moved_bias
