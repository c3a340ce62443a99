"""Why each rule did or did not match a request: the diagnostics behind `route --explain`.

Off the hot path: it checks every rule in evaluation order (no dispatch index) and names the
first condition that fails. Pure; the router never calls it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.routing.conditions import TextView, context_holds
from engine.routing.decision import RouteDecision, RouteRequest
from engine.routing.index import KeywordIndex
from engine.routing.tables import CompiledRule


@dataclass(frozen=True, slots=True)
class RuleCheck:
    """One rule against one request: `failed` names the first condition that does not hold,
    or is None when every condition holds."""

    rule: str
    to: str
    priority: int
    failed: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "to": self.to, "priority": self.priority,
                "failed": self.failed}


def _failures(rule: CompiledRule, request: RouteRequest, text: TextView) -> Iterator[str]:
    if rule.tools is not None and request.tool not in rule.tools:
        yield f"tool is {request.tool!r}, not one of {sorted(rule.tools)}"
    if rule.sources is not None and request.sender not in rule.sources:
        yield f"from {request.sender!r}, not one of {sorted(rule.sources)}"
    if rule.priority_range is not None:
        low, high = rule.priority_range
        if not low <= request.priority <= high:
            yield f"priority {request.priority} is outside {low}-{high}"
    for key, value in rule.context:
        if not context_holds(request.context, key, value):
            yield f"context {key!r} is not {value!r}"
    missing = [rule.spelling[p] for p in rule.all_keywords if not text.has(p)]
    if missing:
        yield f"keywords.all: no {', '.join(map(repr, missing))} in the text"
    if rule.any_keywords and not any(text.has(p) for p in rule.any_keywords):
        yield f"keywords.any: none of {', '.join(rule.spelling[p] for p in rule.any_keywords)}"
    absent = [c for c in rule.capabilities if c not in text.capabilities]
    if absent:
        yield f"capabilities not signalled: {', '.join(absent)}"


def check_rules(
    rules: tuple[CompiledRule, ...], index: KeywordIndex, request: RouteRequest
) -> list[RuleCheck]:
    """Every rule, in evaluation order, with the first condition it fails (if any)."""
    text = TextView(request.text, index, explicit=request.capabilities)
    return [
        RuleCheck(rule.id, rule.to, rule.priority, next(_failures(rule, request, text), None))
        for rule in rules
    ]


def rule_verdict(decision: RouteDecision, check: RuleCheck) -> str:
    """What became of one rule in `decision`: `no match: <condition>`, `matched, chosen`,
    `matched, dropped: <reason>` or `matched, not reached`."""
    if check.failed is not None:
        return f"no match: {check.failed}"
    found = [c for c in decision.candidates if c.rule is not None and c.rule == check.rule]
    if not found:
        return "matched, not reached"
    dropped = found[-1].dropped
    return "matched, chosen" if dropped is None else f"matched, dropped: {dropped.value}"
