"""`handoff test PATH [CASES...]`: run routing test cases against config sets.

Prints each case's outcome and a coverage report of the rules, triggers and agents exercised,
as text, JSON or GitHub annotations. Without CASES each set runs its own `cases.yaml` (a folder
of sets runs every set that has one). Exit 0 all passed, 1 any failure or a malformed cases
file (located issues), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cli.output import annotation, plural
from engine.cli.terminal import Terminal
from engine.config.root import CASES_FILES
from engine.errors import ConfigError, UsageError
from engine.loading.loader import enclosing_root, find_roots, load_config
from engine.routing.cases import CaseResult, load_cases, run_case
from engine.routing.coverage import Covered, coverage
from engine.routing.explain import headline
from engine.routing.router import Router
from engine.routing.snapshot import Snapshot

NAME = "test"
HELP = "Run routing test cases (request -> expected target, layer, rule) with a coverage report."
FORMATS = ("text", "json", "github")
DEFAULT_CASES = CASES_FILES


@dataclass(frozen=True, slots=True)
class Run:
    """One cases file run against one config set."""

    config: str
    file: str
    results: tuple[CaseResult, ...]
    covered: tuple[Covered, ...]

    @property
    def failed(self) -> int:
        return sum(not result.passed for result in self.results)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml, a folder holding one, a "
                        "folder whose sub-folders hold sets, or any file of a set")
    parser.add_argument("cases", nargs="*", metavar="CASES",
                        help="cases files (YAML or JSON); default: each set's cases.yaml")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="report format (default: text)")


def _sets(path: str) -> list[str]:
    if os.path.isdir(path):
        return [display for _root, display in find_roots(Path(path), path)]
    enclosing = enclosing_root(path) if os.path.isfile(path) else None
    return [enclosing[1] if enclosing else path]


def _own_cases(root: str) -> str | None:
    folder = os.path.dirname(root) if os.path.basename(root) == "engine.yaml" else root
    found = (os.path.join(folder, name) for name in DEFAULT_CASES)
    return next((name for name in found if os.path.isfile(name)), None)


def plan(path: str, cases: Sequence[str], terminal: Terminal) -> list[tuple[str, str]]:
    """The (config set, cases file) pairs to run; UsageError when there is nothing to run."""
    roots = _sets(path)
    if cases:
        if len(roots) != 1:
            raise UsageError(f"{path} holds {len(roots)} config sets: name one to give CASES")
        return [(roots[0], file) for file in cases]
    pairs = []
    for root in roots:
        own = _own_cases(root)
        if own is None:
            terminal.info(f"{root}: no cases.yaml beside it, skipped")
        else:
            pairs.append((root, own))
    if not pairs:
        raise UsageError(f"no cases file found for {path}: give CASES, or add cases.yaml "
                         "beside engine.yaml")
    return pairs


def run_file(config: str, snapshot: Snapshot, file: str) -> Run:
    cases, issues = load_cases(file, snapshot)
    if issues:
        raise ConfigError(issues, what="cases file")
    router = Router(snapshot)
    results = tuple(run_case(router, case) for case in cases)
    return Run(config, file, results, coverage(snapshot, results))


def _line(result: CaseResult, terminal: Terminal) -> str:
    decision = result.decision
    got = decision.target or f"refused ({decision.rejection.value if decision.rejection else '-'})"
    if decision.target is not None:
        got = headline(decision)
    if result.passed:
        return f"{terminal.paint('PASS', 'green')}  {result.case.name} -> {got}"
    lines = [f"{terminal.paint('FAIL', 'red')}  {result.case.where}: {result.case.name} -> {got}"]
    lines += [f"        {failure}" for failure in result.failures]
    return "\n".join(lines)


def render_text(runs: Sequence[Run], terminal: Terminal) -> str:
    lines: list[str] = []
    for run in runs:
        if len(runs) > 1:
            lines.append(terminal.paint(f"== {run.config}: {run.file}", "bold"))
        lines += [_line(result, terminal) for result in run.results
                  if not (terminal.quiet and result.passed)]
        if not terminal.quiet:
            total = len(run.results)
            lines.append(f"{total} case(s): {total - run.failed} passed, {run.failed} failed")
            lines.append("coverage: " + "; ".join(item.summary() for item in run.covered))
    if len(runs) > 1 and not terminal.quiet:
        cases, failed = sum(len(run.results) for run in runs), sum(run.failed for run in runs)
        verdict = terminal.paint("ok", "green") if not failed else terminal.paint(
            f"{failed} failed", "red")
        lines.append(f"tested {plural(len(runs), 'cases file')}, "
                     f"{plural(cases, 'case')}: {verdict}")
    return "\n".join(lines)


def _run_document(run: Run) -> dict[str, Any]:
    return {
        "config": run.config,
        "file": run.file,
        "passed": len(run.results) - run.failed,
        "failed": run.failed,
        "cases": [
            {"name": result.case.name, "where": result.case.where, "passed": result.passed,
             "failures": list(result.failures), "decision": result.decision.to_dict()}
            for result in run.results
        ],
        "coverage": {item.kind: item.to_dict() for item in run.covered},
    }


def render_json(runs: Sequence[Run], terminal: Terminal) -> str:
    documents = [_run_document(run) for run in runs]
    top: dict[str, Any] = {"passed": sum(d["passed"] for d in documents),
                           "failed": sum(d["failed"] for d in documents)}
    if len(documents) == 1:
        top |= {"cases": documents[0]["cases"], "coverage": documents[0]["coverage"]}
    top["runs"] = documents
    return json.dumps(top, indent=2)


def render_github(runs: Sequence[Run], terminal: Terminal) -> str:
    lines = []
    for run in runs:
        for result in run.results:
            if result.passed:
                continue
            file, _sep, line = result.case.where.rpartition(":")
            lines.append(annotation("error", f"{result.case.name}: {'; '.join(result.failures)}",
                                    file=file, line=int(line), title="case-failed"))
    cases, failed = sum(len(run.results) for run in runs), sum(run.failed for run in runs)
    lines.append(annotation("notice", f"{cases} case(s): {cases - failed} passed, {failed} failed"))
    return "\n".join(lines)


RENDER_BY_NAME = {"text": render_text, "json": render_json, "github": render_github}


def execute(args: argparse.Namespace) -> int:
    runs = []
    snapshots: dict[str, Snapshot] = {}
    for config, file in plan(args.path, args.cases, args.terminal):
        if config not in snapshots:
            snapshots[config] = load_config(config)
        args.terminal.info(f"running {file} against {config}")
        runs.append(run_file(config, snapshots[config], file))
    report = RENDER_BY_NAME[args.format](runs, args.terminal)
    if report:
        print(report)
    return 0 if all(run.failed == 0 for run in runs) else 1
