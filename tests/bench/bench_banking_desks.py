"""The shipped `configs/banking` recipe on real bank queries it never saw: the set with its
learned BANKING77 blocks taken out, `handoff learn` from a seeded 80% cut of BANKING77's
training split (through the desk map, as the shipped set was learned from all of it), then
`handoff eval` on the other 20% and on a copy of them as a speech recognizer might hand them
over (`gen_noise.speech`: near-homophones, split, merged and dropped words). Beside it, in the
same run, a scikit-learn TF-IDF + logistic regression classifier trained on the same 80% at
desk level. Real processes, as a team would run them; skipped when the corpora are absent.

Run: `python tests/bench/bench_banking_desks.py` (the `bench` extra). Figures are printed,
never asserted. Targets: accuracy >= 97%, specialist recall >= 85%, false transfers <= 2%,
spoken-style accuracy >= 90%.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from baseline import BANKING, classifier, line, rows_of, tally_classifier
from bench_corpora import CORPORA, banking77
from gen_noise import speech

from engine.evaluation.labels import load_labels

LEARNED = "# learned by `handoff learn`"
DESKS = CORPORA / "banking77" / "desks.yaml"


def base_set(into: Path) -> Path:
    """A copy of configs/banking without the example lines learned from BANKING77 (each block
    starts at its `learned by` comment and runs to the next line that is no list item)."""
    shutil.copytree(BANKING, into)
    capabilities = into / "capabilities.yaml"
    kept, learned = [], False
    for text in capabilities.read_text(encoding="utf-8").splitlines(keepends=True):
        if text.lstrip().startswith(LEARNED):
            learned = True
        elif not (learned and text.lstrip().startswith("- ")):
            learned = False
            kept.append(text)
    capabilities.write_text("".join(kept), encoding="utf-8")
    return into


def write(path: Path, pairs: list[tuple[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows([("text", "category"), *pairs])
    return path


def handoff(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"handoff {args[0]} failed:\n{done.stderr}")
    return done.stdout


def evaluated(config: Path, corpus: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        handoff("eval", str(config), str(corpus), "--labels", str(DESKS), "--format", "json"))
    return found


def report(label: str, found: dict[str, Any]) -> str:
    return (f"  {label:<44} accuracy {found['accuracy']:6.1%}  specialist recall "
            f"{found['specialist_recall']:6.1%}  false transfers "
            f"{found['false_transfer_rate']:5.1%}")


def main() -> int:
    if not CORPORA.is_dir():
        print(f"skipped: no corpora at {CORPORA}")
        return 0
    train, test = banking77()
    spoken = [(speech(text, random.Random(n)), label) for n, (text, label) in enumerate(test)]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        base = base_set(root / "base")
        started = time.perf_counter()
        handoff("learn", str(base), str(write(root / "train.csv", train)), "--labels",
                str(DESKS), "--out", str(root / "learned"), "-q")
        took = time.perf_counter() - started
        before = evaluated(base, write(root / "test.csv", test))
        after = evaluated(root / "learned", root / "test.csv")
        heard = evaluated(root / "learned", write(root / "spoken.csv", spoken))
        settings = after["examples_layer"]
    desks = load_labels(DESKS, agents=[path.stem for path in (BANKING / "agents").glob("*.yaml")])
    entry = "concierge"
    started = time.process_time()
    predict = classifier([text for text, _ in train], [desks[label] for _, label in train])
    fitted = time.process_time() - started
    agents = tuple(sorted(set(desks.values())))
    print(f"configs/banking recipe on BANKING77 ({len(train)} learning rows, {len(test)} "
          f"held-out rows, desk level; targets: accuracy >= 97%, specialist recall >= 85%, "
          f"false transfers <= 2%, spoken-style accuracy >= 90%)")
    print(report("the set without its learned examples", before))
    print(report(f"after handoff learn ({took:.1f} s wall)", after))
    print(report("the same, spoken-style rows", heard))
    print(f"    examples layer as learned: {settings}")
    for name, rows in (("TF-IDF + logistic regression", test), ("the same, spoken-style rows",
                                                                spoken)):
        tally = tally_classifier(predict, rows_of([(t, desks[label]) for t, label in rows],
                                                  entry), agents)
        print(line(name, tally, f"fit {fitted:.1f} s CPU" if rows is test else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
