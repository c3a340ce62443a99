"""`handoff eval CONFIG CORPUS`: route every row of a labelled corpus and report accuracy.

Streams the corpus (CSV or JSONL), reports bad rows located by line, and prints the metrics
as text, JSON or GitHub annotations (`-q`: text shows only the thresholds missed). Exit 0 ok,
1 a threshold failed or the corpus had bad rows (or the config fails to load), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys

from engine.errors import UsageError
from engine.evaluation.corpus import SEVERAL, CorpusReader
from engine.evaluation.labels import load_labels
from engine.evaluation.report import RENDER_BY_NAME, Report, Threshold, render_findings
from engine.evaluation.run import Evaluation, evaluate
from engine.evaluation.sweep import Point, curve, thresholds_of
from engine.loading.loader import load_config
from engine.routing.router import Router

NAME = "eval"
HELP = "Measure routing accuracy on a labelled corpus (CSV or JSONL: text,agent[,from,context])."


def _fraction(text: str) -> float:
    value = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction between 0 and 1 (or 0-100%)")
    return value


def _recall(text: str) -> tuple[str, float]:
    agent, sep, value = text.partition("=")
    if not sep or not agent:
        raise argparse.ArgumentTypeError(f"{text!r} is not AGENT=FRACTION")
    return agent, _fraction(value)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="CONFIG", help="an engine.yaml or a folder holding one")
    parser.add_argument("corpus", metavar="CORPUS", help="a CSV or JSONL file of labelled rows")
    parser.add_argument("--format", choices=tuple(RENDER_BY_NAME), default="text",
                        help="report format (default: text)")
    parser.add_argument("--min-accuracy", type=_fraction, metavar="X",
                        help="exit 1 when accuracy is below X (0-1, or a percentage: 95%%)")
    parser.add_argument("--min-recall", type=_recall, action="append", default=[],
                        metavar="AGENT=X", help="exit 1 when AGENT's recall is below X; "
                        "AGENT 'specialists' means every row that belongs to another agent "
                        "than its sender (repeatable)")
    parser.add_argument("--max-false-transfers", type=_fraction, metavar="X",
                        help="exit 1 when more than X of the rows that should stay with their "
                             "sender are routed away")
    parser.add_argument("--labels", metavar="FILE",
                        help="a YAML mapping of the corpus's labels to agents (a corpus "
                             "labelled by intent, say)")
    parser.add_argument("--several-labels", choices=SEVERAL, default="any",
                        help="a row labelled with several agents: a route to any of them is "
                             "right (any, the default), only to its first label (first), or "
                             "the row is skipped (skip)")
    parser.add_argument("--curve", action="store_true",
                        help="also show accuracy, specialist recall and false transfers with "
                             "the examples layer answering from each min_score (0-0.95)")
    parser.add_argument("--worst", type=int, default=10, metavar="N",
                        help="how many of the worst misses to show (default: 10)")


def _thresholds(args: argparse.Namespace, evaluation: Evaluation) -> list[Threshold]:
    tally = evaluation.tally
    found = []
    if args.min_accuracy is not None:
        found.append(Threshold("accuracy", args.min_accuracy, tally.accuracy))
    for agent, limit in args.min_recall:
        if agent == "specialists":
            found.append(Threshold("recall:specialists", limit, tally.transfer_recall))
            continue
        if agent not in tally.agents:
            raise UsageError(f"--min-recall: {agent!r} is not an agent of the config")
        found.append(Threshold(f"recall:{agent}", limit, tally.recall_of(agent)))
    if args.max_false_transfers is not None:
        limit = args.max_false_transfers
        found.append(Threshold("false_transfers", limit, tally.false_transfer_rate))
    return found


def note_several(reader: CorpusReader, command: str) -> None:
    """Say on stderr how many rows had several labels and what became of them."""
    if not reader.several_rows:
        return
    fate = {"first": "scored against their first label" if command == "eval"
            else "learned for their first label", "skip": "skipped",
            "any": "right when routed to any of them"}[reader.several]
    print(f"handoff {command}: {reader.several_rows} row(s) labelled with several agents: "
          f"{fate} (--several-labels)", file=sys.stderr)


def execute(args: argparse.Namespace) -> int:
    if args.worst < 0:
        raise UsageError("--worst must be 0 or more")
    snapshot = load_config(args.path)
    agents = tuple(snapshot.agents)
    labels = load_labels(args.labels, agents=agents) if args.labels else None
    reader = CorpusReader(args.corpus, agents=agents, entry=snapshot.config.engine.entry,
                          labels=labels, several=args.several_labels)
    evaluation = evaluate(Router(snapshot), reader, agents=agents, worst=args.worst)
    note_several(reader, "eval")
    thresholds = _thresholds(args, evaluation)
    issues = tuple(reader.issues)
    points: tuple[Point, ...] = ()
    if args.curve:  # a second pass over the file, its bad rows already reported
        again = CorpusReader(args.corpus, agents=agents, entry=snapshot.config.engine.entry,
                             labels=labels, several=args.several_labels)
        points = tuple(curve(snapshot, again))
    examples = thresholds_of(snapshot) if snapshot.example_index is not None else None
    report = Report(args.corpus, evaluation, issues, tuple(thresholds), reader.bad_rows,
                    points, examples)
    if args.format == "text":
        for issue in issues:
            print(issue, file=sys.stderr)
        if reader.bad_rows > len(issues):
            print(f"... and {reader.bad_rows - len(issues)} more bad row(s)", file=sys.stderr)
    quiet = args.format == "text" and args.terminal.quiet
    shown = render_findings(report) if quiet else RENDER_BY_NAME[args.format](report)
    if shown:
        print(shown)
    if evaluation.tally.rows == 0 and not reader.bad_rows:
        print(f"handoff eval: {args.corpus}: no rows to evaluate", file=sys.stderr)
        return 1
    failed = reader.bad_rows > 0 or not all(t.passed for t in thresholds)
    return 1 if failed else 0
