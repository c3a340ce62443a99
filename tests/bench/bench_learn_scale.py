"""`handoff learn` at scale: 50,000 labelled rows over 200 agents, as a real process, cold (no
kept models), twice to show the output is the same byte for byte; beside the fit of a
scikit-learn TF-IDF + logistic regression classifier on the same rows in the same run.

The rows are real queries (`../shared/corpora`: CLINC150's and BANKING77's training splits,
their 227 labels folded onto 200 agents), repeated with one word dropped until there are
50,000; the set is `gen_configs`' generated set of 200 agents, its entry agent allowed to hand
off to all. Skipped when the corpora are absent.

Run: `python tests/bench/bench_learn_scale.py [--rows 50000] [--agents 200]` (the `bench`
extra, for scikit-learn). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_corpora import CORPORA, classifier
from gen_configs import write_config_set


def corpus(rows: int, agents: int) -> list[tuple[str, str]]:
    """`rows` real queries labelled with `agents` agents (see the module docstring)."""
    data = json.loads((CORPORA / "clinc150" / "train_val.json").read_text(encoding="utf-8"))
    found = [(text, label) for text, label in data["train"]]
    with (CORPORA / "banking77" / "train.csv").open(encoding="utf-8") as stream:
        found += [(row["text"], "b77_" + row["category"]) for row in csv.DictReader(stream)]
    labels = sorted({label for _, label in found})
    agent = {label: f"agent_{n % agents:04d}" for n, label in enumerate(labels)}
    rng, out = random.Random(3), []
    while len(out) < rows:
        for text, label in found[: rows - len(out)]:
            words = text.split()
            if len(out) >= len(found) and len(words) > 2:  # a repeat: one word dropped
                del words[rng.randrange(len(words))]
            out.append((" ".join(words), agent[label]))
    return out


def config_set(folder: Path, agents: int) -> Path:
    write_config_set(folder, agents=agents)
    entry = folder / "agents" / "agent_0000.yaml"
    lines = entry.read_text(encoding="utf-8").splitlines()
    lines = ["peers: ['*']" if line.startswith("peers:") else line for line in lines]
    entry.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def learn(config: Path, rows: Path, out: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one `handoff learn` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "engine", "learn", str(config), str(rows),
                    "--out", str(out), "-q"], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "HANDOFF_MODEL_CACHE": "off"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss // 1024


def same_tree(left: Path, right: Path) -> bool:
    compared = filecmp.dircmp(left, right)
    if compared.left_only or compared.right_only or compared.diff_files or compared.funny_files:
        return False
    return all(same_tree(left / name, right / name) for name in compared.common_dirs)


def classifier_fit(rows: list[tuple[str, str]]) -> float:
    """CPU seconds of the baseline classifier's fit (`bench_corpora.classifier`)."""
    started = time.process_time()
    classifier(rows)
    return time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--agents", type=int, default=200)
    options = parser.parse_args()
    if not CORPORA.is_dir():
        print(f"skipped: no corpora at {CORPORA}")
        return 0
    rows = corpus(options.rows, options.agents)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        config = config_set(root / "set", options.agents)
        data = root / "rows.csv"
        with data.open("w", newline="", encoding="utf-8") as stream:
            csv.writer(stream).writerows([("text", "agent"), *rows])
        first = learn(config, data, root / "out1")
        second = learn(config, data, root / "out2")
        same = same_tree(root / "out1", root / "out2")
    fitted = classifier_fit(rows)
    print(f"learn {len(rows):,} rows, {options.agents} agents, cold (HANDOFF_MODEL_CACHE=off):")
    for name, (wall, cpu, rss) in (("first", first), ("second", second)):
        print(f"  {name}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {rss} MB")
    print(f"  the two outputs are {'identical' if same else 'DIFFERENT'} byte for byte")
    print(f"  TF-IDF + logistic regression fit on the same rows: {fitted:.1f} s CPU "
          f"(learn / fit: {first[1] / fitted:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
