"""`handoff learn CONFIG CORPUS --out DIR`: grow a config set's examples (and, asked, its
keywords) from a labelled corpus, into a new folder.

Reports what cleaning the corpus did (bad rows, duplicates, conflicting labels: counted, with
samples), the gain measured on a held-out part of the corpus, writes the learned set (the
original is never written) and checks it as `handoff check --strict` would. Exit 0 written
(bad rows are reported and left out), 1 a written set that fails the check, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.cli.eval import _fraction, note_several
from engine.errors import UsageError
from engine.evaluation.corpus import CorpusReader
from engine.evaluation.labels import load_labels
from engine.evaluation.metrics import Tally
from engine.learning.clean import REASONS
from engine.learning.learn import TOTAL, Outcome, learn
from engine.learning.write import check_out, write_learned
from engine.loading.loader import check_paths, load_config

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
    parser.add_argument("--max-examples", type=int, default=10_000, metavar="N",
                        help="most examples learned per agent (default: 10000)")
    parser.add_argument("--max-total", type=int, default=TOTAL, metavar="N",
                        help=f"most examples learned in all, an equal share per agent "
                             f"(default: {TOTAL}; what bounds the time learning takes)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="report format (default: text)")
    parser.add_argument("--labels", metavar="FILE",
                        help="a YAML mapping of the corpus's labels to agents (a corpus "
                             "labelled by intent, say)")
    parser.add_argument("--max-false-transfers", type=_fraction, metavar="X",
                        help="choose the most accurate thresholds that route away at most X "
                             "of the rows that should stay (default: the set's "
                             "examples.max_false_transfer, else the most accurate)")
    parser.add_argument("--several-labels", choices=("first", "skip"), default="first",
                        help="a row labelled with several agents: learn it for its first "
                             "label, or skip it (default: first; one utterance cannot be an "
                             "example of two agents in a valid set)")
    parser.add_argument("--keywords", action="store_true",
                        help="also learn precise keywords per agent")


def _figures(tally: Tally) -> dict[str, float]:
    return {"accuracy": round(tally.accuracy, 4),
            "specialist_recall": round(tally.transfer_recall, 4),
            "false_transfer_rate": round(tally.false_transfer_rate, 4)}


def _document(outcome: Outcome, out: str, reader: CorpusReader) -> dict[str, Any]:
    agents = sorted({agent for agent, _ in outcome.learned.added})
    return {
        "out": out,
        "bad_rows": {"rows": reader.bad_rows,
                     "issues": [{"line": issue.line, "code": issue.code,
                                 "message": issue.message} for issue in reader.issues]},
        "several_labels": {"rows": reader.several_rows, "policy": reader.several},
        "train_rows": outcome.train_rows,
        "test_rows": outcome.test_rows,
        "before": _figures(outcome.before),
        "after": _figures(outcome.after),
        "thresholds": {"min_score": outcome.thresholds.min_score,
                       "margin": outcome.thresholds.margin,
                       "temperature": outcome.thresholds.temperature,
                       "unknown_words": outcome.thresholds.unknown_words},
        "cleaning": {reason: {"rows": count, "meaning": REASONS[reason],
                              "samples": [{"line": line, "text": text} for line, text
                                          in outcome.report.samples.get(reason, [])]}
                     for reason, count in sorted(outcome.report.counts.items())},
        "examples": {agent: outcome.learned.count(agent) for agent in agents},
        "over_budget": outcome.learned.over_budget,
        "keywords": [{"agent": k.agent, "keyword": k.text, "z": round(k.z, 2),
                      "precision": round(k.precision, 3), "rows": k.support}
                     for k in outcome.keywords],
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
    lines.append(f"examples layer: min_score {chosen['min_score']}, margin {chosen['margin']}, "
                 f"temperature {chosen['temperature']}, unknown_words "
                 f"{chosen['unknown_words']} (chosen on rows held out of the learning part)")
    for found in document["cleaning"].values():
        sample = found["samples"][0] if found["samples"] else None
        quoted = f", e.g. line {sample['line']}: {sample['text'][:60]!r}" if sample else ""
        lines.append(f"  cleaning: {found['rows']} row(s) {found['meaning']}{quoted}")
    lines.append(f"learned from all rows: examples: {examples or 'none'}")
    if document["over_budget"]:
        lines.append(f"  {document['over_budget']} row(s) left out: the files they would go "
                     "to are near the size a set file may have")
    for keyword in document["keywords"]:
        lines.append(f"  keyword {keyword['keyword']!r} -> {keyword['agent']} "
                     f"(z {keyword['z']}, precision {keyword['precision']:.0%} of "
                     f"{keyword['rows']} rows)")
    lines.append(f"written to {document['out']}")
    return "\n".join(lines)


def execute(args: argparse.Namespace) -> int:
    if not 0 < args.holdout < 1:
        raise UsageError("--holdout must be between 0 and 1")
    if args.max_examples < 1 or args.max_total < 1:
        raise UsageError("--max-examples and --max-total must be at least 1")
    snapshot = load_config(args.path)
    check_out(snapshot, Path(args.out))
    agents = tuple(snapshot.agents)
    labels = load_labels(args.labels, agents=agents) if args.labels else None
    reader = CorpusReader(args.corpus, agents=agents, entry=snapshot.config.engine.entry,
                          labels=labels, several=args.several_labels)
    rows = list(reader)
    for issue in reader.issues:
        print(issue, file=sys.stderr)
    note_several(reader, "learn")
    if reader.bad_rows:
        more = reader.bad_rows - len(reader.issues)
        print(f"handoff learn: {reader.bad_rows} bad row(s) in {args.corpus} left out"
              + (f" ({more} not listed)" if more else ""), file=sys.stderr)
    if not rows:
        raise UsageError(f"{args.corpus} holds no rows to learn from")
    outcome = learn(snapshot, rows, holdout=args.holdout, cap=args.max_examples,
                    total=args.max_total,
                    max_false_transfer=args.max_false_transfers, keywords=args.keywords)
    out = Path(args.out)
    write_learned(snapshot, out, outcome.learned.added, outcome.keywords, source=args.corpus,
                  thresholds=outcome.thresholds)
    document = _document(outcome, args.out, reader)
    print(json.dumps(document, indent=2) if args.format == "json" else _text(document))
    result = check_paths([out])
    for issue in result.issues:
        print(issue, file=sys.stderr)
    return 1 if result.failed(strict=True) else 0
