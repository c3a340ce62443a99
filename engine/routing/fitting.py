"""Fitting the examples layer's linear model: a multiclass passive-aggressive learner (on each
example the model gets wrong by less than a margin of 1, the true class and the strongest
wrong class move apart by just enough), with averaged weights.

Every term keeps ONE integer holding all classes' weights as 64-bit fixed-point fields, so
scoring an example is one integer addition per term and an update one multiply-add per term,
whatever the number of classes. Integer sums do not depend on their order, and the example
order comes from a seeded shuffle: the same examples give the same weights on every machine.
Pure; the compiled form a router scores with is `engine.routing.linear`'s.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 1 << 30
"""Fixed-point units per 1.0 of a term's weighted contribution."""
BITS = 64
OFFSET = 1 << 47
"""Added to every field while fitting, so fields stay non-negative for unsigned unpacking (a
contribution stays far below 2**16 * SCALE = 2**46 in magnitude)."""
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
    """The averaged model: per term a signed packed integer whose field `c` is `unit` times
    the term's weight times its weight for class `c` (its contribution to `norm * score_c`),
    and per class the bias in the same units."""

    terms: tuple[int, ...]
    bias: tuple[int, ...]
    unit: int


def fit(examples: Sequence[Example], *, terms: int, classes: int) -> Weights:
    """The averaged passive-aggressive weights of `classes` classes over `terms` terms."""
    layout = struct.Struct(f"<{classes}Q")
    zero = sum(OFFSET << (BITS * c) for c in range(classes))
    one = [1 << (BITS * c) for c in range(classes)]
    fields, bias = [zero] * terms, [0] * classes
    summed, summed_bias, taken = [0] * terms, [0] * classes, 0
    order = list(range(len(examples)))
    shuffle = random.Random(SEED).shuffle
    every = max(1, len(examples) // SNAPSHOTS)
    for epoch in range(EPOCHS):
        shuffle(order)
        for step, number in enumerate(order, 1):
            _update(examples[number], fields, bias, layout, one)
            if epoch >= AVERAGE_FROM and step % every == 0:
                summed = [a + b for a, b in zip(summed, fields, strict=True)]
                summed_bias = [a + b for a, b in zip(summed_bias, bias, strict=True)]
                taken += 1
    if not taken:  # too few examples to reach a snapshot: the last weights
        summed, summed_bias, taken = fields, bias, 1
    base = taken * zero
    return Weights(tuple(value - base for value in summed), tuple(summed_bias), SCALE * taken)


def _update(
    example: Example, fields: list[int], bias: list[int], layout: struct.Struct, one: list[int]
) -> None:
    """One passive-aggressive step on `example` (nothing when it is right by a margin of 1)."""
    total = 0
    for term in example.terms:
        total += fields[term]
    count = len(example.terms) * OFFSET
    norm = example.norm
    fields_now = layout.unpack(total.to_bytes(layout.size, "little"))
    scores = [value - count + b * norm for value, b in zip(fields_now, bias, strict=True)]
    label = example.label
    right = scores[label]
    scores[label] = -float("inf")
    rival = scores.index(max(scores))
    loss = 1.0 - (right - scores[rival]) / (SCALE * norm)
    if loss <= 0.0:
        return
    step = min(AGGRESSIVENESS, loss / 4)  # |x|**2 = 1 (unit vector) + 1 (bias), twice
    apart = one[label] - one[rival]
    for term, gain in zip(example.terms, example.gains, strict=True):
        fields[term] += apart * round(step * gain)
    moved = round(step * SCALE)
    bias[label] += moved
    bias[rival] -= moved
