"""The lifecycle table, declared once as data, and the one shared machine that enforces it.

`TRANSITIONS` rows are `(trigger, sources, dest)`; one `transitions.Machine` (model=None, no
auto transitions) is built from them and answers every legality question. No record state here.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import cast

from transitions import Machine

from engine.records.models import FailureReason, HandoffStatus

S = HandoffStatus


class Trigger(str, enum.Enum):
    """Every move a handoff can make; seed 000 names plus `expire` and `cancel`."""

    accept = "accept"
    reject = "reject"
    start = "start"
    complete = "complete"
    fail = "fail"
    expire = "expire"
    cancel = "cancel"


CREATE = "create"
"""The trigger written in the first history entry (from nothing to `pending`)."""

TRANSITIONS: tuple[tuple[Trigger, tuple[HandoffStatus, ...], HandoffStatus], ...] = (
    (Trigger.accept, (S.pending,), S.accepted),
    (Trigger.reject, (S.pending,), S.rejected),
    (Trigger.start, (S.accepted,), S.in_progress),
    (Trigger.complete, (S.accepted, S.in_progress), S.completed),
    (Trigger.fail, (S.accepted, S.in_progress), S.failed),
    (Trigger.expire, (S.pending, S.accepted, S.in_progress), S.failed),
    (Trigger.cancel, (S.pending, S.accepted, S.in_progress), S.failed),
)
"""The seed 000 moves exactly, plus expiry and cancellation of a live handoff."""

FAILURE_BY_TRIGGER: dict[Trigger, FailureReason] = {
    Trigger.fail: FailureReason.error,
    Trigger.cancel: FailureReason.cancelled,
}
"""Typed failure of the triggers that end in `failed` (expire picks timeout or deadline)."""

MACHINE = Machine(
    model=None,
    states=[status.value for status in HandoffStatus],
    transitions=[
        {"trigger": trigger.value, "source": [s.value for s in sources], "dest": dest.value}
        for trigger, sources, dest in TRANSITIONS
    ],
    initial=S.pending.value,
    auto_transitions=False,
)
"""The one machine for every record: records never get a Machine (13-36 KB each)."""

_EVENTS = {trigger: MACHINE.events[trigger.value].transitions for trigger in Trigger}
_STATUS = {status.value: status for status in HandoffStatus}


def destination(state: HandoffStatus, trigger: Trigger) -> HandoffStatus | None:
    """Where `trigger` takes a record in `state` per the shared machine; None if illegal.

    A lookup in the machine's own event table: no model is attached, nothing is allocated.
    """
    moves = _EVENTS[trigger].get(state)  # a str enum: hashes and compares as its value
    return _STATUS[cast(str, moves[0].dest)] if moves else None


def allowed_triggers(state: HandoffStatus) -> list[Trigger]:
    """The triggers the machine allows from `state`, in table order."""
    names = set(MACHINE.get_triggers(state.value))
    return [trigger for trigger in Trigger if trigger.value in names]


def rows() -> Iterator[tuple[Trigger, HandoffStatus, HandoffStatus]]:
    """Every (trigger, source, dest) edge of the table, one per source."""
    for trigger, sources, dest in TRANSITIONS:
        for source in sources:
            yield trigger, source, dest


def mermaid() -> str:
    """The lifecycle as a Mermaid state diagram, generated from `TRANSITIONS`."""
    lines = ["stateDiagram-v2", f"    [*] --> {S.pending.value}: {CREATE}"]
    lines += [f"    {src.value} --> {dst.value}: {trg.value}" for trg, src, dst in rows()]
    terminal = [s for s in HandoffStatus if not allowed_triggers(s)]
    lines += [f"    {status.value} --> [*]" for status in terminal]
    return "\n".join(lines)
