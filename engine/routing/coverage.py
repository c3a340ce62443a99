"""What a run of routing test cases exercised: rules, triggers and agents, against the totals.

Pure bookkeeping over case results; it never routes anything itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.routing.cases import CaseResult
from engine.routing.decision import Layer
from engine.routing.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Covered:
    """One dimension: every item declared, in declaration order, and those exercised."""

    kind: str
    declared: tuple[str, ...]
    exercised: frozenset[str]

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(item for item in self.declared if item not in self.exercised)

    def summary(self) -> str:
        hit = len(self.declared) - len(self.missing)
        gaps = f" (not exercised: {', '.join(self.missing)})" if self.missing else ""
        return f"{self.kind} {hit}/{len(self.declared)}{gaps}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "declared": len(self.declared),
            "exercised": len(self.declared) - len(self.missing),
            "missing": list(self.missing),
        }


def coverage(snapshot: Snapshot, results: Iterable[CaseResult]) -> tuple[Covered, ...]:
    """Rules that decided a case, triggers a case called, agents a case was routed to."""
    rules: set[str] = set()
    triggers: set[str] = set()
    agents: set[str] = set()
    for result in results:
        decision, tool = result.decision, result.case.request.tool
        if decision.rule is not None:
            rules.add(decision.rule)
        if tool is not None and decision.layer is Layer.trigger:
            triggers.add(tool)
        if decision.target is not None:
            agents.add(decision.target)
    return (
        Covered("rules", tuple(rule.id for rule in snapshot.config.routing.rules),
                frozenset(rules)),
        Covered("triggers", tuple(snapshot.handoff_map), frozenset(triggers)),
        Covered("agents", tuple(snapshot.agents), frozenset(agents)),
    )

