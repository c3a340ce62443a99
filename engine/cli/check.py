"""`handoff check PATH...`: validate config sets with exactly the loader the runtime uses.

Prints every issue of every set (text, json or github annotations) to stdout; exit 0 clean,
1 errors (or warnings with --strict), 2 usage errors. Besides the sets it reads only the cases
files and corpora it is given (and each set's own cases.yaml).
"""

from __future__ import annotations

import argparse

from engine.cli.output import FORMATS, plural, render_issues
from engine.cli.progress import ProgressLine
from engine.config.parse import MAX_NODES
from engine.config.read import DEFAULT_MAX_BYTES
from engine.errors import UsageError
from engine.loading.loader import check_paths

NAME = "check"
HELP = "Validate config sets (engine.yaml and the files it includes) and report every issue."


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {value}")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="an engine.yaml, a folder holding one, a folder whose sub-folders hold sets, or a "
             "file of a set (a cases file or a labelled corpus is checked against its set)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="fail (exit 1) on warnings as well as errors"
    )
    parser.add_argument(
        "--skip-unowned", action="store_true",
        help="ignore files that lie in no config set's folder (for pre-commit hooks)",
    )
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="report format (default: text)"
    )
    parser.add_argument(
        "--max-bytes",
        type=_count,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"size cap per file in bytes (default: {DEFAULT_MAX_BYTES})",
    )
    parser.add_argument(
        "--max-nodes",
        type=_count,
        default=MAX_NODES,
        metavar="N",
        help=f"YAML nodes (scalars, mappings, lists) per file (default: {MAX_NODES})",
    )


def execute(args: argparse.Namespace) -> int:
    if not args.paths:
        raise UsageError("give at least one PATH")
    line = ProgressLine("checking")
    result = check_paths(
        args.paths, max_bytes=args.max_bytes, max_nodes=args.max_nodes,
        skip_unowned=args.skip_unowned,
        progress=lambda root, done, total: line.update(done, total, what=root),
    )
    line.close()
    for snapshot in result.snapshots:
        args.terminal.info(f"{snapshot.config.engine.name}: {len(snapshot.config.files)} files,"
                           f" version {snapshot.version}")
    scope = f"checked {plural(result.sets, 'set')}, {plural(result.files, 'file')}"
    report = render_issues(result.issues, args.format, scope=scope, terminal=args.terminal)
    if report:
        print(report)
    return 1 if result.failed(strict=args.strict) else 0
