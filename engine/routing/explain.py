"""Decisions as text for people: the one-line verdict and the `--explain` breakdown.

Pure formatting of a `RouteDecision` (and optional rule checks); JSON output is
`RouteDecision.to_dict()`. Nothing here routes.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.routing.decision import Layer, RouteDecision
from engine.routing.why import RuleCheck, rule_verdict


def _dropped(decision: RouteDecision) -> str:
    return f"refused ({decision.rejection.value if decision.rejection else 'no_route'})"


def headline(decision: RouteDecision) -> str:
    """`fraud_agent (rule lost-card)`, `claims (keyword: chargebacks)`, `refused (loop): ...`"""
    if decision.target is None:
        return f"{_dropped(decision)}: {decision.detail}"
    layer = decision.layer
    if layer is Layer.trigger:
        how = f"trigger {decision.request.tool}" if decision.request.target is None \
            else "trigger: explicit target"
    elif layer is Layer.rule:
        how = f"rule {decision.rule}"
    elif layer is Layer.keyword:
        how = f"keyword: {', '.join(decision.matched_capabilities)}"
    elif layer is Layer.example and decision.examples is not None:
        how = f"examples: probability {decision.examples.score:.2f}"
    else:
        how = "fallback"
    return f"{decision.target} ({how})"


Trace = tuple[Sequence[str], Sequence[tuple[str, str]]]
"""The normalization steps of a set, and each step's output for one text."""


def render_text(
    decision: RouteDecision,
    *,
    explain: bool,
    checks: Sequence[RuleCheck] = (),
    normalization: Trace = ((), ()),
) -> str:
    """One line (target and layer), or with `explain` the whole decision."""
    head = headline(decision)
    if not explain:
        return head
    lines = [head]
    steps, trace = normalization
    if trace:
        lines.append(f"  normalized:   {trace[-1][1]!r} ({', '.join(steps) or 'exact'})")
    if decision.rule:
        lines.append(f"  rule:         {decision.rule}")
    lines.append(f"  keywords:     {', '.join(decision.matched_keywords) or '-'}")
    lines.append(f"  capabilities: {', '.join(decision.matched_capabilities) or '-'}")
    lines.append("  candidates:" + ("" if decision.candidates else " none"))
    for n, candidate in enumerate(decision.candidates, 1):
        rule = f" rule={candidate.rule}" if candidate.rule else ""
        why = "chosen" if candidate.dropped is None else f"dropped: {candidate.dropped.value}"
        score = f"{candidate.score:.2f}" if isinstance(candidate.score, float) \
            else candidate.score
        lines.append(f"    {n}. {candidate.agent} [{candidate.layer.value}{rule}"
                     f" score={score}] {why}")
    for request in decision.dropped_requests:
        lines.append(f"  dropped request: tool={request.tool} text={request.text!r}")
    lines.extend(_example_lines(decision))
    lines.extend(_rule_lines(decision, checks))
    lines.append(f"  config version: {decision.config_version}")
    return "\n".join(lines)


def _example_lines(decision: RouteDecision) -> list[str]:
    """What the examples layer saw: the most probable agents, deciding terms, nearest examples."""
    match = decision.examples
    if match is None:
        return []
    runner = f"; runner-up {match.second} {match.runner_up:.2f}" if match.second else ""
    lines = [f"  examples:     most probable {match.agent} {match.score:.2f}{runner}; "
             f"margin {match.margin:.2f}"]
    if match.mended is not None:
        lines.append(f"    words mended:   {' '.join(match.mended)!r}")
    if match.terms:
        terms = ", ".join(f"{term!r} +{weight:.2f}" for term, weight in match.terms)
        lines.append(f"    deciding terms: {terms}")
    for near in match.nearest:
        lines.append(f"    nearest: {near.agent} {near.similarity:.2f} {near.text!r}")
    return lines


def _rule_lines(decision: RouteDecision, checks: Sequence[RuleCheck]) -> list[str]:
    """Each rule in evaluation order: matched (and what became of it) or its failing condition."""
    if not checks:
        return []
    lines = ["  rules (evaluation order):"]
    for check in checks:
        verdict = rule_verdict(decision, check)
        lines.append(f"    {check.rule} -> {check.to} (priority {check.priority}): {verdict}")
    return lines
