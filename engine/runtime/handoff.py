"""The steps of `Engine.handoff` after input cleaning: decide, record, system vars, and the
outcome a caller gets. Functions over a router, a manager and a session; no engine state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.config.models import InputLimits
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.lifecycle.delivery import Deliver
from engine.lifecycle.expiry import Expiry
from engine.redaction import Redactor
from engine.routing import Layer, Reason, RouteDecision, Router, RouteRequest
from engine.routing.decision import refused
from engine.routing.snapshot import Snapshot
from engine.runtime.context import build_handoff_system_vars
from engine.runtime.inputs import HandoffInput, InputRefusal, clean_input
from engine.runtime.payloads import PayloadRefusal
from engine.runtime.session import Session


@dataclass(frozen=True, slots=True)
class HandoffOutcome:
    """What `Engine.handoff` did: the routing decision, the audited record, and for a routed
    handoff the system vars to give the agent taking over. `refusal` is set when the input
    (`InputRefusal`) or the payload (`PayloadRefusal`) was refused. The record and the
    decision carry the caller's context intact, and the system vars what the target's context
    policy lets through, intact; with the config's `redact.deliver: redacted`, all three are
    redacted like the stored record."""

    decision: RouteDecision
    record: HandoffRecord
    system_vars: Mapping[str, Any]
    refusal: PayloadRefusal | InputRefusal | None = None

    @property
    def target(self) -> str | None:
        """The agent taking over, or None when policy, the input or the payload refused it."""
        return None if self.refusal is not None else self.decision.target

    @property
    def accepted_by_policy(self) -> bool:
        return self.target is not None

    @property
    def reason(self) -> str | None:
        """The typed reason of a refusal (`not_allowed`, `loop`, ..., `invalid_payload`,
        `invalid_input`, `unknown_sender`), None when routed."""
        if self.refusal is not None:
            return self.refusal.reason
        if self.decision.target is None:
            return (self.decision.rejection or Reason.no_route).value
        return None


@dataclass(frozen=True, slots=True)
class CallerPolicy:
    """What a config allows callers: input caps and the redaction policy (one per snapshot)."""

    limits: InputLimits
    redactor: Redactor

    @classmethod
    def of(cls, snapshot: Snapshot) -> CallerPolicy:
        spec = snapshot.config.engine
        redactor = Redactor(spec.redact.keys, defaults=spec.redact.defaults,
                            values=spec.redact.values)
        return cls(spec.input_limits, redactor)


def configure(manager: HandoffManager, snapshot: Snapshot, policy: CallerPolicy) -> None:
    """Give `manager` the config's expiry, redaction and delivery policies."""
    policies = snapshot.config.engine.policies
    manager.expiry = Expiry.of(policies.pending_timeout_s, policies.deadlines)
    manager.redactor = policy.redactor
    manager.deliver = Deliver(snapshot.config.engine.redact.deliver)


def hiding(manager: HandoffManager, policy: CallerPolicy) -> Redactor | None:
    """The redactor for what the receiver gets; None when it gets the caller's data intact."""
    return None if manager.deliver is Deliver.intact else policy.redactor


def decide(router: Router, request: RouteRequest, session: Session | None) -> RouteDecision:
    if session is None:
        return router.route(request)
    if request.tool is not None and request.tool in session.removed_handoffs:
        detail = f"handoff tool {request.tool!r} was removed in session {session.session_id}"
        return refused(request, reason=Reason.unknown_target, detail=detail,
                       version=router.snapshot.version, layer=Layer.trigger)
    return router.route(request, history=session.history)


def route_checked(router: Router, limits: InputLimits, request: RouteRequest,
                  session: Session | None) -> RouteDecision:
    """`router`'s decision on `request` (with `session`'s history), after the checks
    `Engine.handoff` makes of its input: a request that breaks them is refused before routing
    (no layer; `detail` says which field and why)."""
    cleaned, refusal = clean_input(
        limits, sender=request.sender, text=request.text, tool=request.tool,
        target=request.target, context=request.context, priority=request.priority)
    if refusal is not None:
        return refused_input(router.snapshot, cleaned, refusal)
    if request.text is None:  # no text at all: routed as an empty one, as a handoff is
        request = request._replace(text="")
    return router.route(request, history=session.history if session is not None else ())


def refused_input(
    snapshot: Snapshot, cleaned: HandoffInput, refusal: InputRefusal
) -> RouteDecision:
    """The decision recorded for input refused before routing (no layer, no candidate)."""
    wanted = cleaned.target or snapshot.handoff_map.get(cleaned.tool or "") or ""
    request = RouteRequest(sender=cleaned.sender, text=cleaned.text, tool=cleaned.tool,
                           target=wanted, context=cleaned.context, priority=cleaned.priority)
    return refused(request, reason=None, detail=refusal.detail, version=snapshot.version)


def redacted(decision: RouteDecision, redactor: Redactor) -> RouteDecision:
    """`decision` with its request context and text redacted (itself when nothing matched)."""
    request = decision.request
    context, text = redactor.redact(request.context), redactor.text(request.text)
    if context is request.context and text is request.text:
        return decision
    return decision._replace(request=request._replace(context=context, text=text))


def record(
    manager: HandoffManager,
    decision: RouteDecision,
    rejection: str | None,
    *,
    deadline: datetime | None,
    actor: str | None,
) -> HandoffRecord:
    """Create the handoff's record; `rejected` at once with `rejection` when refused."""
    request = decision.request
    refused = decision.candidates[0].agent if decision.candidates else ""
    created = manager.create_handoff(
        HandoffRequest(
            from_agent=request.sender, to_agent=decision.target or request.target or refused,
            task_description=request.text, context=dict(request.context),
            priority=request.priority, deadline=deadline,
        ),
        config_version=decision.config_version, actor=actor,
    )
    if rejection is None:
        return created
    return manager.reject(created.record_id, rejection, actor=actor or "policy")


def rejection_of(decision: RouteDecision, refusal: PayloadRefusal | InputRefusal | None
                 ) -> str | None:
    """The response reason of a refused handoff (`<reason>: <detail>`), None when routed."""
    if refusal is not None:
        return refusal.response_reason
    if decision.target is None:
        return f"{(decision.rejection or Reason.no_route).value}: {decision.detail}"
    return None


def system_vars(
    snapshot: Snapshot,
    decision: RouteDecision,
    session: Session | None,
    cleaned: HandoffInput,
    *,
    redactor: Redactor | None = None,
) -> dict[str, Any]:
    """The routed target's system vars (seed 002), merged into the session's; redacted by
    `redactor` when the config delivers the receiver redacted data (None: intact, as given)."""
    assert decision.target is not None
    agent = snapshot.agents[decision.target]
    found = build_handoff_system_vars(
        source_agent=decision.request.sender,
        target_agent=decision.target,
        tool_result=cleaned.tool_result or {"handoff_context": dict(cleaned.context)},
        tool_args=cleaned.tool_args or {},
        current_system_vars=session.system_vars if session is not None else {},
        user_last_utterance=cleaned.text or None,
        policy=agent.context,
    )
    greeting = agent.greeting or agent.metadata.get("greeting")
    if isinstance(greeting, str) and greeting:
        found["greeting"] = greeting
    if redactor is not None:
        found = redactor.redact(found)
    if session is not None:
        session.system_vars.update(found)
    return found
