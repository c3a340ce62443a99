"""The policy filter every routing layer applies to a candidate target, and the loop guard.

Pure functions over the compiled tables and the handoff history the caller passes in; the
router decides what a failed check means (rejection for triggers, next candidate otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.routing.compiled import RouteTables
from engine.routing.decision import Reason
from engine.routing.tables import AgentPolicy

Hop = tuple[str, str]
"""One past handoff of the session: `(from_agent, to_agent)`; a history lists them oldest first."""


def round_trips(history: Sequence[Hop], sender: str, target: str) -> int:
    """How many A->B->A round trips between `sender` and `target` the trailing ping-pong of
    `history` holds once the proposed `sender -> target` hop is made. A->B then B->A is one;
    A->B->A->B is still one; A->B->A->B->A is two."""
    expected = (target, sender)
    chain = 1  # the proposed hop
    for hop in reversed(history):
        if tuple(hop) != expected:
            break
        chain += 1
        expected = (expected[1], expected[0])
    return chain // 2


def check(
    tables: RouteTables, sender: AgentPolicy, target: str, history: Sequence[Hop]
) -> Reason | None:
    """Why `sender` may not hand off to `target` right now, or None when it may."""
    receiver = tables.agents.get(target)
    if receiver is None:
        return Reason.unknown_target
    if receiver is sender:
        return Reason.self_handoff
    if not receiver.enabled:
        return Reason.disabled
    if sender.peers is not None and target not in sender.peers:
        return Reason.not_allowed
    if receiver.accepts is not None and sender.name not in receiver.accepts:
        return Reason.not_allowed
    if history and round_trips(history, sender.name, target) > tables.max_bounces:
        return Reason.loop
    return None


def explain(reason: Reason, sender: AgentPolicy, target: str, tables: RouteTables) -> str:
    """A one-line human explanation of a policy reason."""
    if reason is Reason.unknown_target:
        return f"{target!r} is not a declared agent"
    if reason is Reason.self_handoff:
        return f"{sender.name!r} cannot hand off to itself"
    if reason is Reason.disabled:
        return f"{target!r} is disabled"
    if reason is Reason.not_allowed:
        if sender.peers is not None and target not in sender.peers:
            return f"{target!r} is not among the peers of {sender.name!r}"
        return f"{target!r} does not accept handoffs from {sender.name!r}"
    if reason is Reason.loop:
        return (
            f"handing off from {sender.name!r} back to {target!r} would make more than "
            f"{tables.max_bounces} round trip(s) between them (max_bounces)"
        )
    return str(reason.value)
