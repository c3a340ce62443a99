"""`handoff learn` on a hard synthetic corpus (70 fine-grained intents with vocabulary shared
across desks, mostly everyday calls, terse requests and noise: tests/bench/gen_intents.py),
beside a scikit-learn TF-IDF + logistic regression classifier fitted on the same training rows
and scored on the same test rows in the same run. The test rows also use a phrasing of each
intent that the training rows never do.

Run: `python tests/bench/bench_learn.py [--sizes 8000,2400] [--seed S] [--rounds N]` (needs
the `bench` extra). Figures are printed, never asserted: accuracy, specialist recall, false
transfers, route latency and learning time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from engine.evaluation.corpus import Row
from engine.evaluation.sweep import with_thresholds
from engine.learning.learn import TOTAL, learn_from, learned_snapshot, tuned_thresholds
from engine.loading.loader import load_config
from engine.routing import Router, RouteRequest
from engine.routing.snapshot import Snapshot

sys.path.insert(0, str(Path(__file__).parent))
from baseline import (
    BANKING,
    classifier,
    line,
    percentiles,
    rows_of,
    tally_classifier,
    tally_router,
)
from gen_intents import generate


def learned(banking: Snapshot, train: list[Row], cap: int) -> tuple[Snapshot, str]:
    """What `handoff learn` writes for `train`, and a line about it."""
    started = time.perf_counter()
    bound = banking.config.engine.examples.max_false_transfer
    thresholds = tuned_thresholds(banking, train, cap=cap, total=TOTAL // 2, keywords=False,
                                  max_false_transfer=bound)
    tuned = with_thresholds(banking, thresholds)
    examples, keywords = learn_from(tuned, train, cap=cap)
    snapshot = learned_snapshot(tuned, examples, keywords)
    took = time.perf_counter() - started
    size = len(snapshot.example_index.examples) if snapshot.example_index else 0
    return snapshot, (f"learned in {took:.1f} s: {size} examples, {len(keywords)} keywords, "
                      f"min_score {thresholds.min_score}, margin {thresholds.margin}")


def compare_learned(banking: Snapshot, train: list[Row], test: list[Row], *, rounds: int,
                    cap: int = 1000) -> None:
    """Print a learned set and a classifier fitted on `train`, both scored on `test`."""
    entry = banking.config.engine.entry
    snapshot, how = learned(banking, train, cap)
    print(f"  {how}")
    router = Router(snapshot)
    texts = [row.text for row in test]
    ours = percentiles(lambda t: router.route(RouteRequest(entry, t)), texts, rounds)
    print(line("config learned by handoff learn", tally_router(snapshot, test), ours))
    predict = classifier([r.text for r in train], [r.agent for r in train])
    theirs = percentiles(predict, texts[:300], 1)
    print(line("TF-IDF + logistic regression (scikit-learn)",
               tally_classifier(predict, test, tuple(banking.agents)), theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="8000,2400", help="training rows, comma-separated")
    parser.add_argument("--test", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    banking = load_config(BANKING)
    entry = banking.config.engine.entry
    test = rows_of(generate(args.test, args.seed + 1000, part="test"), entry)
    for size in (int(n) for n in args.sizes.split(",")):
        train = rows_of(generate(size, args.seed), entry)
        print(f"hard synthetic corpus: {len(train)} training rows, {len(test)} test rows "
              f"(seeds {args.seed}, {args.seed + 1000})")
        compare_learned(banking, train, test, rounds=args.rounds)


if __name__ == "__main__":
    main()
