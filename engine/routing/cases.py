"""Routing test cases: loading a cases file against a Snapshot, running them, and coverage.

Reading, parsing and schema validation go through the config pipeline's `read_document`;
this module adds the cross-checks (unknown agents, tools, rules) as located issues.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.config.document import read_document
from engine.config.positions import Document, json_path
from engine.issues import Issue, sort_key
from engine.routing.decision import RouteDecision, RouteRequest
from engine.routing.policy import Hop
from engine.routing.router import Router
from engine.routing.snapshot import Snapshot

CASES_SCHEMA = "cases.schema.json"
CHECKED = ("target", "layer", "rule", "rejection")


@dataclass(frozen=True, slots=True)
class RouteCase:
    """One case: the request to route, its session history and the decision fields expected."""

    name: str
    request: RouteRequest
    history: tuple[Hop, ...]
    expect: Mapping[str, str | None]
    where: str


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: RouteCase
    decision: RouteDecision
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failures


def _actual(decision: RouteDecision, key: str) -> str | None:
    value = getattr(decision, key)
    return None if value is None else str(getattr(value, "value", value))


def run_case(router: Router, case: RouteCase) -> CaseResult:
    decision = router.route(case.request, history=case.history)
    failures = tuple(
        f"expected {key} {expected!r}, got {_actual(decision, key)!r}"
        for key, expected in case.expect.items()
        if _actual(decision, key) != expected
    )
    return CaseResult(case, decision, failures)


def _issue(document: Document, path: tuple[str | int, ...], code: str, message: str) -> Issue:
    line, col = document.locate(path)
    return Issue(document.file, line, col, json_path(path), code, message)


def _unknown(kind: str, name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{name!r} is not a declared {kind} of this config set{hint}"


def _names_in(raw: Mapping[str, Any]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every agent name a raw case refers to, with its path inside the case."""
    yield ("from",), raw["from"]
    if "to" in raw:
        yield ("to",), raw["to"]
    target = raw["expect"].get("target")
    if target is not None:
        yield ("expect", "target"), target
    for n, hop in enumerate(raw.get("history", ())):
        yield ("history", n, 0), hop[0]
        yield ("history", n, 1), hop[1]


def _case_issues(document: Document, index: int, raw: Mapping[str, Any],
                 snapshot: Snapshot) -> Iterator[Issue]:
    base: tuple[str | int, ...] = ("cases", index)
    for path, name in _names_in(raw):
        if name not in snapshot.agents:
            yield _issue(document, (*base, *path), "unknown-agent",
                         _unknown("agent", name, snapshot.agents))
    tables = snapshot.tables
    tools = sorted({*snapshot.handoff_map, *(tables.rule_tools if tables else ())})
    if "tool" in raw and raw["tool"] not in tools:
        message = _unknown("tool", raw["tool"], tools)
        yield _issue(document, (*base, "tool"), "unknown-tool", message)
    rule = raw["expect"].get("rule")
    rule_ids = [r.id for r in snapshot.rules]
    if rule is not None and rule not in rule_ids:
        yield _issue(document, (*base, "expect", "rule"), "unknown-rule",
                     _unknown("rule", rule, rule_ids))
    for capability in raw.get("capabilities", ()):
        if capability not in snapshot.config.capabilities:
            yield _issue(document, (*base, "capabilities"), "unknown-capability",
                         _unknown("capability", capability, snapshot.config.capabilities))


def _build_case(document: Document, index: int, raw: Mapping[str, Any]) -> RouteCase:
    request = RouteRequest(
        sender=raw["from"],
        text=raw["text"],
        tool=raw.get("tool"),
        target=raw.get("to"),
        context=dict(raw.get("context", {})),
        priority=raw.get("priority", 5),
        capabilities=tuple(raw.get("capabilities", ())),
    )
    line, _col = document.locate(("cases", index))
    return RouteCase(
        name=raw["name"],
        request=request,
        history=tuple((hop[0], hop[1]) for hop in raw.get("history", ())),
        expect={key: raw["expect"][key] for key in CHECKED if key in raw["expect"]},
        where=f"{document.file}:{line}",
    )


def is_cases_document(path: str | os.PathLike[str]) -> bool:
    """True when `path` reads as a mapping with a top-level `cases` key (a cases file)."""
    document, _source, _issues = read_document(path, None, file=os.fspath(path))
    return document is not None and isinstance(document.data, Mapping) and (
        "cases" in document.data)


def check_cases_file(path: str | os.PathLike[str], snapshot: Snapshot | None) -> list[Issue] | None:
    """Every issue of a cases file (its shape, then the names it uses when `snapshot` is
    given), or None when `path` is not a cases file at all."""
    if not is_cases_document(path):
        return None
    if snapshot is None:
        return read_document(path, CASES_SCHEMA, file=os.fspath(path))[2]
    return load_cases(path, snapshot)[1]


def load_cases(
    path: str | os.PathLike[str], snapshot: Snapshot
) -> tuple[tuple[RouteCase, ...], list[Issue]]:
    """The cases of `path`, or () and every located issue (file shape first, then names)."""
    document, _source, issues = read_document(path, CASES_SCHEMA, file=os.fspath(path))
    if document is None:
        return (), issues
    seen: dict[str, int] = {}
    for index, raw in enumerate(document.data["cases"]):
        issues.extend(_case_issues(document, index, raw, snapshot))
        if raw["name"] in seen:
            message = f"case name {raw['name']!r} already used by case #{seen[raw['name']]}"
            issues.append(_issue(document, ("cases", index, "name"), "duplicate-case", message))
        seen.setdefault(raw["name"], index)
    if issues:
        return (), sorted(issues, key=sort_key)
    return tuple(_build_case(document, n, raw) for n, raw in enumerate(document.data["cases"])), []
