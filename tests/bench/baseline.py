"""What the examples benchmarks share: the scikit-learn TF-IDF + logistic regression baseline,
tallies of a router or a classifier on labelled rows, latency percentiles and report lines.
Figures are printed by the benchmarks, never asserted.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.evaluation.corpus import Row
from engine.evaluation.metrics import Tally
from engine.routing import Router, RouteRequest
from engine.routing.snapshot import Snapshot

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"


def rows_of(pairs: Sequence[tuple[str, str]], entry: str) -> list[Row]:
    return [Row(n, text, agent, entry) for n, (text, agent) in enumerate(pairs, 2)]


def latency(call: Callable[[str], object], texts: Sequence[str], rounds: int
            ) -> tuple[float, float]:
    """p50 and p99 (us) of `call` over `texts`, `rounds` times, after a warm-up."""
    for text in texts[:200]:
        call(text)
    samples = []
    clock = time.perf_counter_ns
    gc.disable()
    try:
        for _ in range(rounds):
            for text in texts:
                started = clock()
                call(text)
                samples.append((clock() - started) / 1000)
    finally:
        gc.enable()
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def percentiles(call: Callable[[str], object], texts: Sequence[str], rounds: int) -> str:
    p50, p99 = latency(call, texts, rounds)
    return f"p50 {p50:7.2f} us  p99 {p99:7.2f} us"


def tally_router(snapshot: Snapshot, rows: Sequence[Row]) -> Tally:
    router, tally = Router(snapshot), Tally(tuple(snapshot.agents))
    for row in rows:
        target = router.route(RouteRequest(row.sender, row.text)).target
        tally.add(row.agent, row.sender, target, 0.0)
    return tally


def tally_classifier(predict: Callable[[str], str], rows: Sequence[Row], agents: tuple[str, ...]
                     ) -> Tally:
    tally = Tally(agents)
    for row in rows:
        guess = predict(row.text)
        tally.add(row.agent, row.sender, None if guess == row.sender else guess, 0.0)
    return tally


def classifier(texts: Sequence[str], labels: Sequence[str]) -> Callable[[str], str]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                          LogisticRegression(max_iter=2000, C=10.0))
    model.fit(list(texts), list(labels))
    return lambda text: str(model.predict([text])[0])


def line(label: str, tally: Tally, cost: str) -> str:
    return (f"  {label:<44} accuracy {tally.accuracy:6.1%}  specialist recall "
            f"{tally.transfer_recall:6.1%}  false transfers {tally.false_transfer_rate:5.1%}"
            f"  {cost}")
