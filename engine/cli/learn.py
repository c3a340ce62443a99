"""`handoff learn CONFIG CORPUS --out DIR`: grow a config set's examples and keywords from a
labelled corpus, into a new folder.

Reports the gain measured on a held-out part of the corpus, writes the learned set (the
original is never written) and checks it as `handoff check --strict` would. Exit 0 written,
1 bad corpus rows or a written set that fails the check, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.config.loader import check_paths, load_config
from engine.errors import UsageError
from engine.evaluation.corpus import CorpusReader
from engine.evaluation.metrics import Tally
from engine.learning.learn import Outcome, learn
from engine.learning.write import write_learned

NAME = "learn"
HELP = "Learn example utterances and keywords from a labelled corpus into a new config set."
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="CONFIG", help="an engine.yaml or a folder holding one")
    parser.add_argument("corpus", metavar="CORPUS", help="a CSV or JSONL file of labelled rows")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for the learned set (must not exist or be empty)")
    parser.add_argument("--holdout", type=float, default=0.2, metavar="F",
                        help="share of the corpus held out to measure the gain (default: 0.2)")
    parser.add_argument("--max-examples", type=int, default=1000, metavar="N",
                        help="most examples learned per agent (default: 1000)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="report format (default: text)")


def _figures(tally: Tally) -> dict[str, float]:
    return {"accuracy": round(tally.accuracy, 4),
            "specialist_recall": round(tally.transfer_recall, 4),
            "false_transfer_rate": round(tally.false_transfer_rate, 4)}


def _document(outcome: Outcome, out: str) -> dict[str, Any]:
    agents = sorted({agent for agent, _ in outcome.learned.added})
    return {
        "out": out,
        "train_rows": outcome.train_rows,
        "test_rows": outcome.test_rows,
        "before": _figures(outcome.before),
        "after": _figures(outcome.after),
        "thresholds": {"min_score": outcome.thresholds.min_score,
                       "margin": outcome.thresholds.margin},
        "examples": {agent: outcome.learned.count(agent) for agent in agents},
        "keywords": [{"agent": k.agent, "keyword": k.text, "z": round(k.z, 2),
                      "precision": round(k.precision, 3), "rows": k.support}
                     for k in outcome.keywords],
        "conflicts": outcome.learned.conflicts,
    }


def _text(document: dict[str, Any]) -> str:
    before, after = document["before"], document["after"]
    lines = [
        f"expected gain, measured on {document['test_rows']} held-out rows after learning "
        f"from {document['train_rows']}:",
        f"  {'':<20}{'before':>8}{'after':>8}",
    ]
    for key, label in (("accuracy", "accuracy"), ("specialist_recall", "specialist recall"),
                       ("false_transfer_rate", "false transfers")):
        lines.append(f"  {label:<20}{before[key]:>8.1%}{after[key]:>8.1%}")
    examples = ", ".join(f"{agent} {n}" for agent, n in document["examples"].items())
    chosen = document["thresholds"]
    lines.append(f"examples layer: min_score {chosen['min_score']}, margin {chosen['margin']} "
                 "(the most accurate on rows held out of the learning part)")
    lines.append(f"learned from all rows: examples: {examples or 'none'}")
    for keyword in document["keywords"]:
        lines.append(f"  keyword {keyword['keyword']!r} -> {keyword['agent']} "
                     f"(z {keyword['z']}, precision {keyword['precision']:.0%} of "
                     f"{keyword['rows']} rows)")
    if document["conflicts"]:
        lines.append(f"left out {len(document['conflicts'])} utterance(s) labelled with "
                     f"several agents, e.g. {document['conflicts'][0]!r}")
    lines.append(f"written to {document['out']}")
    return "\n".join(lines)


def execute(args: argparse.Namespace) -> int:
    if not 0 < args.holdout < 1:
        raise UsageError("--holdout must be between 0 and 1")
    if args.max_examples < 1:
        raise UsageError("--max-examples must be at least 1")
    snapshot = load_config(args.path)
    reader = CorpusReader(args.corpus, agents=tuple(snapshot.agents),
                          entry=snapshot.config.engine.entry)
    rows = list(reader)
    for issue in reader.issues:
        print(issue, file=sys.stderr)
    if reader.bad_rows:
        print(f"handoff learn: {reader.bad_rows} bad row(s) in {args.corpus}; nothing written",
              file=sys.stderr)
        return 1
    if not rows:
        raise UsageError(f"{args.corpus} holds no rows to learn from")
    outcome = learn(snapshot, rows, holdout=args.holdout, cap=args.max_examples)
    out = Path(args.out)
    write_learned(snapshot, out, outcome.learned.added, outcome.keywords, source=args.corpus,
                  thresholds=outcome.thresholds)
    document = _document(outcome, args.out)
    print(json.dumps(document, indent=2) if args.format == "json" else _text(document))
    result = check_paths([out])
    for issue in result.issues:
        print(issue, file=sys.stderr)
    return 1 if result.failed(strict=True) else 0
