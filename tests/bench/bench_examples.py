"""The examples layer: route latency at banking size with 10,000 examples, and accuracy and
cost beside a scikit-learn TF-IDF + logistic regression classifier fitted on the same data
in the same run. Run: `python tests/bench/bench_examples.py [--quick]` (needs the `bench`
extra for scikit-learn).

Figures are printed, never asserted. Two comparisons: (1) the shipped configs/banking against
a classifier fitted on its examples, both scored on the hand-written corpora; (2) a config
learned by `handoff learn` from the hard synthetic corpus of tests/bench/gen_intents.py against
a classifier fitted on the same rows, both scored on a test corpus drawn with another seed
(tests/bench/bench_learn.py runs more sizes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.evaluation.corpus import CorpusReader, Row
from engine.learning.examples import compile_with, owned_capabilities, place
from engine.loading.loader import load_config
from engine.routing import Router, RouteRequest
from engine.routing.examples import agent_examples
from engine.routing.snapshot import Snapshot

sys.path.insert(0, str(Path(__file__).parent))
import gen_intents
from baseline import (
    BANKING,
    classifier,
    line,
    percentiles,
    rows_of,
    tally_classifier,
    tally_router,
)
from bench_learn import compare_learned
from gen_corpus import generate

CORPORA = [BANKING / "corpus" / "dev.csv", BANKING / "corpus" / "holdout.csv"]


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
    train = rows_of(gen_intents.generate(8_000, 1), entry)
    test = rows_of(gen_intents.generate(2_000, 1001, part="test"), entry)
    print()
    print(f"config learned from {len(train)} hard synthetic rows vs a classifier fitted on "
          f"them ({len(test)} test rows)")
    compare_learned(banking, train, test, rounds=rounds)


if __name__ == "__main__":
    main()
