"""One `Engine.handoff` call from start to end: clean the input, refuse it or route it, check
the payload, record (redacted), move the session, build system vars, emit `handoff_created`.

Functions over what the engine hands in (a router on one snapshot, that snapshot's caller
policy, the lifecycle manager, the hooks); the engine keeps the state. The steps themselves
live in `engine.runtime.handoff`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.lifecycle import HandoffManager
from engine.routing import RouteDecision, Router, RouteRequest
from engine.routing.snapshot import Snapshot
from engine.runtime import handoff
from engine.runtime.call import HandoffCall
from engine.runtime.handoff import CallerPolicy, HandoffOutcome
from engine.runtime.hooks import Event, Hooks
from engine.runtime.inputs import UNKNOWN_SENDER, HandoffInput, InputRefusal, clean_input
from engine.runtime.payloads import PayloadRefusal, check_payload
from engine.runtime.replicas import event_data
from engine.runtime.session import Session


def run(
    call: HandoffCall, router: Router, policy: CallerPolicy, manager: HandoffManager,
    hooks: Hooks,
) -> HandoffOutcome:
    """The handoff `call` asks for, routed by `router` under `policy` (its snapshot's)."""
    cleaned, refusal = clean_input(
        policy.limits, sender=call.sender, text=call.text, tool=call.tool,
        target=call.target, context=call.context, priority=call.priority,
        deadline=call.deadline, tool_args=call.tool_args, tool_result=call.tool_result,
        actor=call.actor,
    )
    session = call.session
    if refusal is None and cleaned.sender not in router.snapshot.agents:
        detail = f"sender: {cleaned.sender!r} is not an agent of the serving config"
        refusal = InputRefusal("sender", detail, UNKNOWN_SENDER)
    if refusal is not None:
        decision = handoff.refused_input(router.snapshot, cleaned, refusal)
        return _finish(decision, refusal, cleaned, policy, manager, hooks, None, None)
    if session is not None and cleaned.tool is not None and cleaned.target is None:
        cleaned = cleaned._replace(target=session.get_handoff_target(cleaned.tool))
    request = RouteRequest(
        sender=cleaned.sender, text=cleaned.text, tool=cleaned.tool, target=cleaned.target,
        context=cleaned.context, priority=cleaned.priority,
    )
    decision = handoff.decide(router, request, session)
    payload = _check_payload(router.snapshot, decision, cleaned.tool_args)
    return _finish(decision, payload, cleaned, policy, manager, hooks, session, router.snapshot)


def _check_payload(
    snapshot: Snapshot, decision: RouteDecision, payload: Mapping[str, Any] | None
) -> PayloadRefusal | InputRefusal | None:
    try:
        return check_payload(snapshot, sender=decision.request.sender, target=decision.target,
                             payload=payload)
    except RecursionError:  # within max_depth, but a recursive schema still nests too far
        return InputRefusal("tool_args", "tool_args: nested too deep to check against the "
                                         "payload schema")


def _finish(
    decision: RouteDecision,
    refusal: PayloadRefusal | InputRefusal | None,
    cleaned: HandoffInput,
    policy: CallerPolicy,
    manager: HandoffManager,
    hooks: Hooks,
    session: Session | None,
    snapshot: Snapshot | None,
) -> HandoffOutcome:
    """Record the handoff (redacted), move the session, build system vars, emit (redacted).
    The outcome carries the caller's data intact unless the config delivers it redacted."""
    rejection = handoff.rejection_of(decision, refusal)
    if rejection is not None and cleaned.tool_args:
        rejection = policy.redactor.scrub(rejection, cleaned.tool_args)
    record = handoff.record(manager, decision, rejection, deadline=cleaned.deadline,
                            actor=cleaned.actor)
    system_vars: Mapping[str, Any] = {}
    hidden = handoff.hiding(manager, policy)  # None: the receiver gets data intact
    if rejection is None and decision.target is not None and snapshot is not None:
        if session is not None:
            returning = decision.target == session.previous_agent
            session.record_hop(
                decision.target, record_id=record.record_id, returning=returning, routed=True
            )
        system_vars = handoff.system_vars(snapshot, decision, session, cleaned,
                                          redactor=hidden)
    shown = handoff.redacted(decision, policy.redactor)
    stored = manager.stored_form(record)
    hooks.emit(Event("handoff_created", event_data(stored, decision=shown)))
    if hidden is not None:
        return HandoffOutcome(shown, stored, system_vars, refusal)
    return HandoffOutcome(decision, record, system_vars, refusal)
