"""The examples layer's thresholds, and what a corpus scores at each: every row routed twice
(the examples layer answering at any score, and at none; at one `temperature` and
`unknown_words`), then any `min_score` and `margin` scored by arithmetic (`handoff eval
--curve`, and `handoff learn` choosing thresholds).

Pure over models and rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.evaluation.corpus import Row
from engine.routing.decision import Layer, RouteRequest
from engine.routing.router import Router
from engine.routing.snapshot import Snapshot, compile_snapshot

NEVER = 2.0
"""A `min_score` no probability reaches: the examples layer never answers."""


@dataclass(frozen=True, slots=True, order=True)
class Thresholds:
    """An examples-layer `min_score`, `margin`, `temperature` and `unknown_words` (each
    higher is more cautious: a tie between two goes to the higher)."""

    min_score: float
    margin: float
    temperature: float = 0.1
    unknown_words: float = 1.0


def thresholds_of(snapshot: Snapshot) -> Thresholds:
    settings = snapshot.config.engine.examples
    return Thresholds(settings.min_score, settings.margin, settings.temperature,
                      settings.unknown_words)


def with_thresholds(snapshot: Snapshot, chosen: Thresholds) -> Snapshot:
    """`snapshot` recompiled with the examples layer answering at `chosen`."""
    engine = snapshot.config.engine
    examples = engine.examples.model_copy(update={
        "min_score": chosen.min_score, "margin": chosen.margin,
        "temperature": chosen.temperature, "unknown_words": chosen.unknown_words})
    config = snapshot.config.model_copy(
        update={"engine": engine.model_copy(update={"examples": examples})})
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


@dataclass(frozen=True, slots=True)
class Seen:
    """One row as the examples layer sees it at some temperature: the agent it would send
    the row to (None: it does not answer), that agent's probability and lead, and where the
    row goes when the examples layer does not answer. `expected` is the row's agent, `also`
    its other labels' (a route to one of them is right too: see `Row.also`)."""

    expected: str
    sender: str
    agent: str | None
    score: float
    margin: float
    otherwise: str
    also: tuple[str, ...] = ()


def seen_rows(learned: Snapshot, rows: Iterable[Row], temperature: float) -> list[Seen]:
    """Each row as `learned` (with its own `unknown_words`) sees it at `temperature`."""
    unknown_words = learned.config.engine.examples.unknown_words
    answering = Router(with_thresholds(learned, Thresholds(0.0, 0.0, temperature,
                                                           unknown_words)))
    silent = Router(with_thresholds(learned, Thresholds(NEVER, 0.0, temperature,
                                                        unknown_words)))
    found = []
    for row in rows:
        request = RouteRequest(row.sender, row.text, context=row.context)
        otherwise = silent.route(request).target or row.sender
        decision = answering.route(request)
        match = decision.examples
        if decision.layer is Layer.example and match is not None:
            found.append(Seen(row.agent, row.sender, decision.target, match.score,
                              match.margin, otherwise, row.also))
        else:
            found.append(Seen(row.agent, row.sender, None, 0.0, 0.0, otherwise, row.also))
    return found


def tally_at(seen: Sequence[Seen], min_score: float, margin: float
           ) -> tuple[float, float, float]:
    """Accuracy, specialist recall and false-transfer rate of the rows at these thresholds."""
    right = stays = false_transfers = moves = moved_right = 0
    for row in seen:
        answers = row.agent is not None and row.score >= min_score and row.margin >= margin
        predicted = row.agent if answers and row.agent is not None else row.otherwise
        expected = predicted if predicted in row.also else row.expected
        right += predicted == expected
        if expected == row.sender:
            stays += 1
            false_transfers += predicted != row.sender
        else:
            moves += 1
            moved_right += predicted == expected
    return (right / len(seen), moved_right / moves if moves else 0.0,
            false_transfers / stays if stays else 0.0)


@dataclass(frozen=True, slots=True)
class Point:
    """One point of a threshold curve: the examples layer answering from `min_score` on."""

    min_score: float
    accuracy: float
    specialist_recall: float
    false_transfer_rate: float


CURVE = tuple(step / 20 for step in range(20))
"""The `min_score`s a curve shows."""


def curve(snapshot: Snapshot, rows: Iterable[Row]) -> list[Point]:
    """What `rows` would score with the examples layer answering from each `min_score` of
    `CURVE` (the set's own margin, temperature and unknown_words): the trade-off a team picks
    from."""
    own = thresholds_of(snapshot)
    seen = seen_rows(snapshot, rows, own.temperature)
    return [Point(min_score, *tally_at(seen, min_score, own.margin)) for min_score in CURVE] \
        if seen else []
