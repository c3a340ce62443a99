"""One routed turn with everything `--explain` shows: the decision, each rule's check in
evaluation order and the normalization trace. Shared by `handoff route` and the console.

Pure: it routes through the router it is given and never records anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.routing.decision import RouteDecision, RouteRequest
from engine.routing.policy import Hop
from engine.routing.router import Router
from engine.routing.why import RuleCheck, check_rules, rule_verdict


@dataclass(frozen=True, slots=True)
class Explanation:
    """A decision and the diagnostics behind it. `steps` names the normalization steps of
    the set; `trace` is each step's output for the routed text, in order."""

    decision: RouteDecision
    checks: tuple[RuleCheck, ...]
    steps: tuple[str, ...]
    trace: tuple[tuple[str, str], ...]

    @property
    def normalized(self) -> str:
        """The text every layer matched on (the last step's output)."""
        return self.trace[-1][1] if self.trace else self.decision.request.text

    def rule_verdict(self, check: RuleCheck) -> str:
        """What became of one rule in this decision (see `why.rule_verdict`)."""
        return rule_verdict(self.decision, check)

    def to_dict(self) -> dict[str, Any]:
        """`RouteDecision.to_dict()` plus `rule_checks` and `normalization`."""
        document = self.decision.to_dict()
        document["rule_checks"] = [check.to_dict() for check in self.checks]
        document["normalization"] = {"steps": list(self.steps),
                                     "trace": [{"step": s, "text": t} for s, t in self.trace]}
        return document


def explain_turn(
    router: Router, requests: Sequence[RouteRequest], *, history: Sequence[Hop] = ()
) -> Explanation:
    """Route one turn (one request, or several handoff calls) and explain the decision."""
    decision = router.route_turn(list(requests), history=history)
    snapshot = router.snapshot
    normalizer = snapshot.keyword_index.normalizer
    checks: tuple[RuleCheck, ...] = ()
    if snapshot.tables is not None:
        checks = tuple(check_rules(snapshot.tables.rules, snapshot.keyword_index,
                                   decision.request))
    trace = tuple(normalizer.trace(decision.request.text))
    return Explanation(decision, checks, tuple(normalizer.steps), trace)
