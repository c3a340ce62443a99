"""Learning from a labelled corpus: split it, choose the examples layer's thresholds and learn
examples and keywords from one part, measure the gain on the other, then learn again from all
of it for the set to write.

Pure over models and rows; `engine.learning.write` writes the files.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.config.snapshot import Snapshot, compile_snapshot
from engine.evaluation.corpus import Row
from engine.evaluation.metrics import Tally
from engine.evaluation.run import evaluate
from engine.learning.examples import Learned, choose_examples, with_examples
from engine.learning.keywords import Keyword, log_odds
from engine.learning.thresholds import Thresholds, choose_thresholds, with_thresholds
from engine.learning.write import primary_capability
from engine.routing.router import Router


@dataclass(frozen=True, slots=True)
class Outcome:
    """What was learned from all rows, and the before/after tallies on the held-out part."""

    learned: Learned
    keywords: tuple[Keyword, ...]
    thresholds: Thresholds
    before: Tally
    after: Tally
    train_rows: int
    test_rows: int


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
    snapshot: Snapshot, rows: Sequence[Row], *, cap: int
) -> tuple[Learned, list[Keyword]]:
    keywords = mine_keywords(snapshot, rows)
    base = with_keywords(snapshot, keywords)
    return choose_examples(base, rows, cap=cap), keywords


def learned_snapshot(snapshot: Snapshot, learned: Learned, keywords: Sequence[Keyword]) -> Snapshot:
    base = with_keywords(snapshot, keywords)
    config = with_examples(base.config, learned.added)
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


def learn(snapshot: Snapshot, rows: Sequence[Row], *, holdout: float, cap: int) -> Outcome:
    """Measure on a held-out part what learning from the rest gains (thresholds chosen on
    the rest too), then learn from all rows with those thresholds."""
    train, test = split(rows, snapshot, holdout)
    names = tuple(snapshot.agents)
    thresholds = tuned_thresholds(snapshot, train, cap=cap)
    tuned = with_thresholds(snapshot, thresholds)
    trial = learned_snapshot(tuned, *learn_from(tuned, train, cap=cap))
    before = evaluate(Router(snapshot), test, agents=names, worst=0).tally
    after = evaluate(Router(trial), test, agents=names, worst=0).tally
    learned, keywords = learn_from(tuned, rows, cap=cap)
    return Outcome(learned, tuple(keywords), thresholds, before, after, len(train), len(test))


def tuned_thresholds(snapshot: Snapshot, rows: Sequence[Row], *, cap: int) -> Thresholds:
    """The examples-layer thresholds a set learned from `rows` routes best with."""
    def learner(base: Snapshot, part: Sequence[Row]) -> Snapshot:
        return learned_snapshot(base, *learn_from(base, part, cap=cap))

    def splitter(part: Sequence[Row], base: Snapshot, share: float) -> tuple[list[Row], list[Row]]:
        return split(part, base, share, salt="thresholds ")

    chosen, _accuracy = choose_thresholds(snapshot, rows, learner=learner, splitter=splitter)
    return chosen
