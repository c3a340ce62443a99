"""The examples layer: route latency at banking size with 10,000 examples, and accuracy and
cost beside a scikit-learn TF-IDF + logistic regression classifier fitted on the same data
in the same run. Run: `python tests/bench/bench_examples.py [--quick]` (needs the `bench`
extra for scikit-learn).

Figures are printed, never asserted. Two comparisons: (1) the shipped configs/banking against
a classifier fitted on its examples, both scored on the hand-written corpora; (2) a config
learned by `handoff learn` from a synthetic training corpus against a classifier fitted on the
same rows, both scored on a synthetic test corpus drawn with another seed.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.config.loader import load_config
from engine.config.snapshot import Snapshot
from engine.evaluation.corpus import CorpusReader, Row
from engine.evaluation.metrics import Tally
from engine.learning.examples import compile_with, owned_capabilities, place
from engine.learning.learn import learn_from, learned_snapshot
from engine.routing import Router, RouteRequest
from engine.routing.examples import agent_examples

sys.path.insert(0, str(Path(__file__).parent))
from gen_corpus import generate

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
CORPORA = [BANKING / "corpus" / "dev.csv", BANKING / "corpus" / "holdout.csv"]


def rows_of(pairs: Sequence[tuple[str, str]], entry: str) -> list[Row]:
    return [Row(n, text, agent, entry) for n, (text, agent) in enumerate(pairs, 2)]


def percentiles(call: Callable[[str], object], texts: Sequence[str], rounds: int) -> str:
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
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return f"p50 {statistics.median(samples):7.2f} us  p99 {p99:7.2f} us"


def with_10k_examples(snapshot: Snapshot, seed: int) -> Snapshot:
    owned = owned_capabilities(snapshot.config)
    added: dict[tuple[str, str], list[str]] = {}
    seen = {text for text, _agent, _group in agent_examples(
        snapshot.agents.values(), snapshot.config.capabilities)}
    entry = snapshot.config.engine.entry
    for row in rows_of(generate(40_000, seed), entry):
        if row.text in seen:
            continue
        seen.add(row.text)
        added.setdefault(place(snapshot, row, owned), []).append(row.text)
        if len(seen) >= 10_000:
            break
    return compile_with(snapshot, added)


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


def compare(name: str, snapshot: Snapshot, fit: tuple[list[str], list[str]], rows: list[Row],
            rounds: int) -> None:
    agents = tuple(snapshot.agents)
    predict = classifier(*fit)
    router = Router(snapshot)
    texts = [row.text for row in rows]
    ours = percentiles(lambda t: router.route(RouteRequest(rows[0].sender, t)), texts, rounds)
    theirs = percentiles(predict, texts[:300], 1)
    print(f"{name} ({len(rows)} rows; classifier fitted on {len(fit[0])} texts)")
    print(line("handoff-engine router", tally_router(snapshot, rows), ours))
    print(line("TF-IDF + logistic regression (scikit-learn)",
               tally_classifier(predict, rows, agents), theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    rounds = 3 if args.quick else 20
    banking = load_config(BANKING)
    entry = banking.config.engine.entry
    agents = tuple(banking.agents)
    hand = [row for path in CORPORA for row in CorpusReader(path, agents=agents, entry=entry)]
    texts = [row.text for row in hand]
    shipped_examples = agent_examples(banking.agents.values(), banking.config.capabilities)
    started = time.perf_counter()
    big = with_10k_examples(banking, seed=5)
    build = time.perf_counter() - started
    size = len(big.example_index.examples) if big.example_index else 0
    print("examples-layer benchmark (targets: p50 <= 20 us, p99 <= 100 us with 10,000 examples)")
    router = Router(banking)
    print(f"  shipped banking ({len(shipped_examples)} examples), {len(texts)} requests: "
          + percentiles(lambda t: router.route(RouteRequest(entry, t)), texts, rounds))
    big_router = Router(big)
    print(f"  banking + {size} examples (compiled in {build * 1000:.0f} ms): "
          + percentiles(lambda t: big_router.route(RouteRequest(entry, t)), texts, rounds))
    print()
    compare("shipped configs/banking vs a classifier fitted on its examples, hand-written corpora",
            banking, ([t for t, _, _ in shipped_examples], [a for _, a, _ in shipped_examples]),
            hand, rounds)
    train = rows_of(generate(8_000, 1), entry)
    test = rows_of(generate(2_000, 2), entry)
    learned, keywords = learn_from(banking, train, cap=300)
    print()
    compare("config learned from a synthetic training corpus vs a classifier fitted on it",
            learned_snapshot(banking, learned, keywords),
            ([r.text for r in train], [r.agent for r in train]), test, rounds)


if __name__ == "__main__":
    main()
