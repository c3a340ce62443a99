"""`handoff test PATH CASES.yaml`: run routing test cases against a config set.

Prints each case's outcome and a coverage report of the rules, triggers and agents exercised.
Exit 0 all passed, 1 any failure or a malformed cases file (located issues), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from engine.config.loader import load_config
from engine.errors import ConfigError
from engine.routing.cases import CaseResult, load_cases, run_case
from engine.routing.coverage import Covered, coverage
from engine.routing.explain import headline
from engine.routing.router import Router

NAME = "test"
HELP = "Run routing test cases (request -> expected target, layer, rule) with a coverage report."
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("cases", metavar="CASES", help="the cases file (YAML or JSON)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="report format (default: text)")


def _line(result: CaseResult) -> str:
    decision = result.decision
    got = decision.target or f"refused ({decision.rejection.value if decision.rejection else '-'})"
    if decision.target is not None:
        got = headline(decision)
    if result.passed:
        return f"PASS  {result.case.name} -> {got}"
    lines = [f"FAIL  {result.case.where}: {result.case.name} -> {got}"]
    lines += [f"        {failure}" for failure in result.failures]
    return "\n".join(lines)


def render_text(results: Sequence[CaseResult], covered: Sequence[Covered]) -> str:
    failed = sum(not result.passed for result in results)
    lines = [_line(result) for result in results]
    lines.append(f"{len(results)} case(s): {len(results) - failed} passed, {failed} failed")
    lines.append("coverage: " + "; ".join(item.summary() for item in covered))
    return "\n".join(lines)


def render_json(results: Sequence[CaseResult], covered: Sequence[Covered]) -> str:
    document = {
        "passed": sum(result.passed for result in results),
        "failed": sum(not result.passed for result in results),
        "cases": [
            {
                "name": result.case.name,
                "where": result.case.where,
                "passed": result.passed,
                "failures": list(result.failures),
                "decision": result.decision.to_dict(),
            }
            for result in results
        ],
        "coverage": {item.kind: item.to_dict() for item in covered},
    }
    return json.dumps(document, indent=2)


def execute(args: argparse.Namespace) -> int:
    snapshot = load_config(args.path)
    cases, issues = load_cases(args.cases, snapshot)
    if issues:
        raise ConfigError(issues, what="cases file")
    router = Router(snapshot)
    results = [run_case(router, case) for case in cases]
    covered = coverage(snapshot, results)
    render = render_json if args.format == "json" else render_text
    print(render(results, covered))
    return 0 if all(result.passed for result in results) else 1
