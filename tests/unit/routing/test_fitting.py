"""Fitting the examples layer's model: the numpy fit computes exactly the averaged
passive-aggressive weights a plain per-class reference computes."""

from __future__ import annotations

import math
import random

from engine.routing import fitting
from engine.routing.fitting import SCALE, Example, fit


def reference(examples: list[Example], terms: int, classes: int) -> tuple[list[list[int]],
                                                                        list[int], int]:
    """The averaged passive-aggressive learner the module docstring describes, one Python
    integer per term and class."""
    weights = [[0] * classes for _ in range(terms)]
    bias = [0] * classes
    summed = [[0] * classes for _ in range(terms)]
    summed_bias, taken = [0] * classes, 0
    order = list(range(len(examples)))
    shuffle = random.Random(fitting.SEED).shuffle
    every = max(1, len(examples) // fitting.SNAPSHOTS)
    for epoch in range(fitting.EPOCHS):
        shuffle(order)
        for step, number in enumerate(order, 1):
            example = examples[number]
            scores = [sum(weights[t][c] for t in example.terms) + bias[c] * example.norm
                      for c in range(classes)]
            right, label = scores[example.label], example.label
            scores[label] = -math.inf
            rival = scores.index(max(scores))
            loss = 1.0 - (right - scores[rival]) / (SCALE * example.norm)
            if loss > 0.0:
                step_size = min(fitting.AGGRESSIVENESS, loss / 4)
                for term, gain in zip(example.terms, example.gains, strict=True):
                    moved = round(step_size * gain)
                    weights[term][label] += moved
                    weights[term][rival] -= moved
                bias[label] += round(step_size * SCALE)
                bias[rival] -= round(step_size * SCALE)
            if epoch >= fitting.AVERAGE_FROM and step % every == 0:
                for t in range(terms):
                    summed[t] = [a + b for a, b in zip(summed[t], weights[t], strict=True)]
                summed_bias = [a + b for a, b in zip(summed_bias, bias, strict=True)]
                taken += 1
    return summed, summed_bias, SCALE * taken


def test_the_fit_is_the_plain_averaged_passive_aggressive_learner() -> None:
    rng = random.Random(5)
    terms, classes = 40, 4
    examples = []
    for n in range(60):
        chosen = sorted(rng.sample(range(terms), rng.randint(1, 6)))
        gains = tuple(rng.uniform(0.05, 1.0) * SCALE for _ in chosen)
        examples.append(Example(tuple(chosen), gains, rng.uniform(0.5, 3.0), n % classes))
    weights = fit(examples, terms=terms, classes=classes)
    summed, summed_bias, unit = reference(examples, terms, classes)
    assert weights.unit == unit
    assert weights.bias == tuple(summed_bias)
    assert weights.matrix.tolist() == summed
    assert any(f < 0 for row in summed for f in row)
