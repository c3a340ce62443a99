"""Choosing the examples layer's `unknown_words`, `temperature`, `min_score` and `margin` for a
learned set, on rows it did not learn from: for each unknown-word weight (the set's own, and
with a `max_false_transfer` also those of `UNKNOWN_WORDS`), the temperature that makes its
probabilities most likely (least log loss); then, over them all, the most accurate thresholds
whose false transfers stay within the set's `max_false_transfer` (or the fewest false
transfers, when none does). Ties: the set's own weight, then the more cautious thresholds.

Candidates are scored by arithmetic over rows routed once each way (`engine.evaluation.sweep`).
Pure over models and rows.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import replace
from itertools import repeat

from engine.evaluation.corpus import Row
from engine.evaluation.sweep import (
    Thresholds,
    seen_rows,
    tally_at,
    thresholds_of,
    with_thresholds,
)
from engine.routing.snapshot import Snapshot

TEMPERATURES = (0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0)
MIN_SCORES = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)
UNKNOWN_WORDS = (1.0, 2.0, 3.0)
"""Unknown-word weights tried under a `max_false_transfer`. A heavier unknown word makes a
request about something no example mentions less sure: on CLINC150's out-of-scope queries
(validation, threshold chosen on one half and read on the other), 2 sends 30% of them to an
agent at 90% in-scope accuracy, 1 sends 35%. It also makes misheard words cost
more (BANKING77 with recognition slips, words not mended: 73% right at 1, 70% at 2), so a
heavier weight is taken only when the held-out rows route strictly better with it."""
LOG_LOSS_ROWS = 2_000
"""Rows the temperature is fitted on, at most (enough for one number)."""


def choose_thresholds(
    learned: Snapshot, rows: Sequence[Row], *, max_false_transfer: float | None
) -> Thresholds:
    """The thresholds `learned` routes `rows` best with (see the module docstring). No rows:
    the set's own."""
    if not rows:
        return thresholds_of(learned)
    scored: list[tuple[tuple[bool, float, float, bool], Thresholds]] = []
    own = thresholds_of(learned)
    tried = (own.unknown_words,) if max_false_transfer is None else UNKNOWN_WORDS
    for unknown_words in dict.fromkeys((own.unknown_words, *tried)):
        weighted = with_thresholds(learned, replace(own, unknown_words=unknown_words))
        temperature = _temperature(weighted, rows)
        seen = seen_rows(weighted, rows, temperature)
        for min_score in MIN_SCORES:
            for margin in MARGINS:
                accuracy, _recall, false_transfers = tally_at(seen, min_score, margin)
                within = max_false_transfer is None or false_transfers <= max_false_transfer
                scored.append(((within, -false_transfers if not within else 0.0, accuracy,
                                unknown_words == own.unknown_words),
                               Thresholds(min_score, margin, temperature, unknown_words)))
    return max(scored)[1]


def _temperature(learned: Snapshot, rows: Sequence[Row]) -> float:
    """The temperature whose probabilities give the rows' own agents the least log loss."""
    index = learned.example_index
    if index is None:
        return thresholds_of(learned).temperature
    groups_of: dict[str, list[int]] = {}  # each agent with examples -> its groups
    for group, agent in enumerate(index.group_agents):
        groups_of.setdefault(index.agent_names[agent], []).append(group)
    scored: list[tuple[list[float], tuple[int, ...]]] = []
    for row in rows:
        mine = groups_of.get(row.agent)
        if mine is None:
            continue
        found = index.probabilities(index.normalizer.tokens(row.text), row.text)
        if found is None:
            continue
        groups = found.groups
        top = max(groups)
        scored.append(([value - top for value in groups], tuple(mine)))
        if len(scored) == LOG_LOSS_ROWS:
            break
    if not scored:
        return thresholds_of(learned).temperature
    return min(TEMPERATURES, key=lambda t: (_log_loss(scored, t), t))


def _log_loss(scored: Sequence[tuple[list[float], tuple[int, ...]]], temperature: float) -> float:
    """The rows' log loss at `temperature`; each row is its groups' scores less the best one
    (the softmax does not change with a common shift) and its own agent's groups."""
    total, inverse = 0.0, 1.0 / temperature
    for gaps, mine in scored:
        shares = list(map(math.exp, map(operator.mul, gaps, repeat(inverse))))
        right = sum(shares[g] for g in mine)
        total -= math.log(max(right / sum(shares), 1e-300))
    return total
