"""Learning from a labelled corpus: clean the rows, split them, choose the examples layer's
thresholds on one part of the learning rows after learning from the rest, measure on the
held-out part what learning gains, then learn from every row with those thresholds.

Pure over models and rows; `engine.learning.write` writes the files.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.evaluation.corpus import Row
from engine.evaluation.metrics import Tally
from engine.evaluation.run import evaluate
from engine.evaluation.sweep import Thresholds, with_thresholds
from engine.learning.clean import Report, clean
from engine.learning.examples import Learned, Place, choose_examples, with_examples
from engine.learning.keywords import Keyword, log_odds
from engine.learning.thresholds import choose_thresholds
from engine.learning.write import primary_capability
from engine.routing.router import Router
from engine.routing.snapshot import Snapshot, compile_snapshot

VALIDATION = 0.2
"""Share of the learning rows the thresholds are chosen on."""
TOTAL = 10_000
"""Most examples learned in all (see `choose_examples`): what bounds the cost of fitting."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What was learned from all rows, the before/after tallies on the held-out part, and
    what cleaning the corpus did."""

    learned: Learned
    keywords: tuple[Keyword, ...]
    thresholds: Thresholds
    before: Tally
    after: Tally
    train_rows: int
    test_rows: int
    report: Report


def split(
    rows: Sequence[Row], snapshot: Snapshot, holdout: float, *, salt: str = ""
) -> tuple[list[Row], list[Row]]:
    """A stable split by the hash of each normalized utterance (duplicates stay together).
    Another `salt` splits the rows afresh (a part split again keeps rows on both sides)."""
    normalize = snapshot.keyword_index.normalizer.tokens
    train: list[Row] = []
    test: list[Row] = []
    for row in rows:
        key = (salt + " ".join(normalize(row.text))).encode("utf-8")
        (test if zlib.crc32(key) % 1000 < holdout * 1000 else train).append(row)
    return train, test


def with_keywords(snapshot: Snapshot, keywords: Sequence[Keyword]) -> Snapshot:
    config = snapshot.config
    capabilities = dict(config.capabilities)
    for keyword in keywords:
        name = primary_capability(snapshot, keyword.agent)
        if name is not None:
            spec = capabilities[name]
            capabilities[name] = spec.model_copy(
                update={"keywords": (*spec.keywords, keyword.text)})
    config = config.model_copy(update={"capabilities": capabilities})
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


def _known(snapshot: Snapshot) -> set[tuple[str, ...]]:
    return {words for entries in snapshot.keyword_index.entries.values()
            for words, _spelling, _caps in entries}


def mine_keywords(snapshot: Snapshot, rows: Sequence[Row]) -> list[Keyword]:
    """Precise new keywords of every agent but the entry (a keyword to the entry agent only
    bounces requests back to it), minus any that misroute a row of `rows` once added."""
    entry = snapshot.config.engine.entry
    agents = [a for a in snapshot.agents if a != entry and primary_capability(snapshot, a)]
    normalizer = snapshot.keyword_index.normalizer
    found = log_odds(rows, normalizer, agents=agents, known=_known(snapshot))
    if not found:
        return []
    trial = with_keywords(snapshot, found)
    names = tuple(trial.agents)
    misfires = evaluate(Router(trial), rows, agents=names, worst=0).wrong
    bad = {what for (layer, what, _target) in misfires if layer == "keyword"}
    return [keyword for keyword in found if keyword.text not in bad]


def learn_from(
    snapshot: Snapshot, rows: Sequence[Row], *, cap: int, total: int = TOTAL,
    keywords: bool = False, places: dict[tuple[str, str], Place] | None = None,
) -> tuple[Learned, list[Keyword]]:
    mined = mine_keywords(snapshot, rows) if keywords else []
    base = with_keywords(snapshot, mined) if mined else snapshot
    return choose_examples(base, rows, cap=cap, total=total, places=places), mined


def learned_snapshot(snapshot: Snapshot, learned: Learned, keywords: Sequence[Keyword]) -> Snapshot:
    base = with_keywords(snapshot, keywords) if keywords else snapshot
    config = with_examples(base.config, learned.added)
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


def learn(
    snapshot: Snapshot, rows: Iterable[Row], *, holdout: float, cap: int, total: int = TOTAL,
    max_false_transfer: float | None = None, keywords: bool = False,
) -> Outcome:
    """Measure on a held-out part what learning from the rest gains (thresholds chosen on
    the rest too), then learn from all rows with those thresholds. `max_false_transfer`
    (default: the set's own `examples.max_false_transfer`) bounds the chosen thresholds."""
    kept, report = clean(rows, snapshot)
    train, test = split(kept, snapshot, holdout)
    if max_false_transfer is None:
        max_false_transfer = snapshot.config.engine.examples.max_false_transfer
    places: dict[tuple[str, str], Place] = {}  # the same base examples throughout
    thresholds = tuned_thresholds(snapshot, train, cap=cap, total=total // 2,
                                  keywords=keywords, max_false_transfer=max_false_transfer,
                                  places=places)
    tuned = with_thresholds(snapshot, thresholds)
    trial = learned_snapshot(tuned, *learn_from(tuned, train, cap=cap, total=total,
                                                keywords=keywords, places=places))
    names = tuple(snapshot.agents)
    before = evaluate(Router(snapshot), test, agents=names, worst=0).tally
    after = evaluate(Router(trial), test, agents=names, worst=0).tally
    learned, mined = learn_from(tuned, kept, cap=cap, total=total, keywords=keywords,
                                places=places)
    return Outcome(learned, tuple(mined), thresholds, before, after, len(train), len(test),
                   report)


def tuned_thresholds(
    snapshot: Snapshot, rows: Sequence[Row], *, cap: int, total: int, keywords: bool,
    max_false_transfer: float | None, places: dict[tuple[str, str], Place] | None = None,
) -> Thresholds:
    """The examples-layer thresholds a set learned from part of `rows` routes the rest of
    them best with (see `choose_thresholds`)."""
    fit, check = split(rows, snapshot, VALIDATION, salt="thresholds ")
    learned = learned_snapshot(snapshot, *learn_from(
        snapshot, fit, cap=cap, total=total, keywords=keywords, places=places))
    return choose_thresholds(learned, check, max_false_transfer=max_false_transfer)
