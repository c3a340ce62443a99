"""Computing one move: the moved copy of a record for a trigger, or `IllegalTransition`.

Pure functions over frozen records; legality comes from the shared table's machine. Nothing
here reads or writes a store, and nothing takes locks.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, NamedTuple

from engine.errors import IllegalTransition, UsageError
from engine.lifecycle.expiry import Expiry, overdue_reason
from engine.lifecycle.table import CREATE, FAILURE_BY_TRIGGER, Trigger, destination
from engine.records.limits import has_surrogate
from engine.records.models import (
    FailureReason,
    HandoffRecord,
    HandoffResponse,
    HandoffStatus,
    evolve,
    new_move,
)
from engine.stores.export_data import where

ACCEPTED_REASON = "Accepted by receiving agent."
_ACCEPTED = HandoffResponse(accepted=True, reason=ACCEPTED_REASON)  # shared: responses are frozen

# Hot-path constants: on Python 3.11 `Trigger.accept` and `.value` go through a descriptor.
_ACCEPT, _COMPLETE = Trigger.accept, Trigger.complete
_FAILED, _REJECTED = HandoffStatus.failed, HandoffStatus.rejected
_NAME: dict[str, str] = {member: member.value for member in (*Trigger, *HandoffStatus)}


class MoveOrder(NamedTuple):
    """One requested move: which record, which trigger, and what it carries (immutable)."""

    record_id: str
    trigger: Trigger
    reason: str = ""
    result: dict[str, Any] | None = None
    actor: str = ""


def moved(
    record: HandoffRecord,
    order: MoveOrder,
    context: tuple[datetime, Expiry],
    *,
    failure: FailureReason | None = None,
) -> HandoffRecord:
    """The copy of `record` after `order`, one history entry longer and one version higher.

    `context` is (now, the manager's `Expiry`). Raises IllegalTransition if the table forbids
    it. A move is never dated before the record's last change, whatever the clock says.
    """
    state = record.status
    trigger = order.trigger
    dest = destination(state, trigger)
    if dest is None:
        raise IllegalTransition(record.record_id, _NAME[state], _NAME[trigger])
    reason = order.reason
    if order.result is not None or type(reason) is not str or not reason.isascii():
        problem = order_problem(order)
        if problem is not None:
            raise UsageError(f"cannot {_NAME[trigger]} {record.record_id}: {problem}")
    now = context[0]
    if now < record.updated_at:
        now = record.updated_at
    reason = ACCEPTED_REASON if trigger is _ACCEPT else order.reason
    entry = new_move(state, dest, _NAME[trigger], now, reason, order.actor)
    changes: dict[str, Any] = {
        "status": dest,
        "updated_at": now,
        "history": (*record.history, entry),
        "version": record.version + 1,
    }
    if trigger is _ACCEPT:
        changes["response"] = _ACCEPTED
    elif trigger is _COMPLETE:
        changes["result"] = dict(order.result or {})
    elif dest is _FAILED or dest is _REJECTED:
        changes["response"] = HandoffResponse(accepted=False, reason=reason)
        if dest is _FAILED:
            changes["failure"] = failure or _failure(record, trigger, context)
    return evolve(record, changes)


RESULT_MAX_DEPTH = 100
"""Deepest nesting of a move's result (engine.yaml's `max_depth` is at most 100 too): far
within what every store reads back (an export item may be 200 levels deep, the record
included)."""


def order_problem(order: MoveOrder) -> str | None:
    """What a move carries that a store could not write or read back, or None: a reason that
    is not valid text, a result that is no mapping, nests deeper than `RESULT_MAX_DEPTH`
    levels (a cycle too) or holds text that is not valid Unicode. Other values are the
    store's to serialize, as before (a `datetime` becomes its ISO text in a SQL store)."""
    reason = order.reason
    if not isinstance(reason, str):
        return f"reason: expected a string, got {type(reason).__name__}"
    if has_surrogate(reason):
        return "reason: holds a lone surrogate (not valid Unicode text)"
    result = order.result
    if result is None:
        return None
    if not isinstance(result, Mapping):
        return f"result: expected a mapping, got {type(result).__name__}"
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(result, ("result",))]
    while stack:  # iterative: any depth is safe to walk
        current, path = stack.pop()
        if len(path) > RESULT_MAX_DEPTH:
            return f"{where(path)}: nested deeper than {RESULT_MAX_DEPTH} levels"
        mapping = type(current) is dict or isinstance(current, Mapping)
        for key, item in current.items() if mapping else enumerate(current):
            if type(key) is str and has_surrogate(key):
                return f"{where(path)}: a key holds a lone surrogate (not valid Unicode text)"
            kind = type(item)
            if kind is str:
                if has_surrogate(item):
                    return (f"{where((*path, key))}: holds a lone surrogate (not valid "
                            "Unicode text)")
            elif kind is dict or kind is list or kind is tuple or (
                    kind not in _LEAVES and isinstance(item, (Mapping, list, tuple))):
                stack.append((item, (*path, key)))
    return None


_LEAVES = frozenset({int, float, bool, type(None)})


def _failure(
    record: HandoffRecord, trigger: Trigger, context: tuple[datetime, Expiry]
) -> FailureReason:
    known = FAILURE_BY_TRIGGER.get(trigger)
    if known is not None:
        return known
    why = overdue_reason(record, *context)  # an explicit expire: say which limit, if any
    if why is not None:
        return why[0]
    return FailureReason.timeout if record.request.deadline is None else FailureReason.deadline


def history_problem(record: HandoffRecord) -> str | None:
    """What is wrong with a record's history per the table, or None if it is a legal path.

    An empty history is allowed (records exported by seed 000 have none). Otherwise it must
    start with `create` into pending, chain each move's `from` to the previous `to` through
    legal moves, and end in the record's status.
    """
    if not record.history:
        return None
    first = record.history[0]
    if first.from_ is not None or first.to is not HandoffStatus.pending or first.trigger != CREATE:
        return "history must start with 'create' into 'pending'"
    state: HandoffStatus = first.to
    for index, move in enumerate(record.history[1:], start=1):
        trigger = _TRIGGERS.get(move.trigger)
        legal = trigger is not None and destination(state, trigger) is move.to
        if move.from_ is not state or not legal:
            source = "nothing" if move.from_ is None else repr(move.from_.value)
            return f"history[{index}]: {move.trigger} from {source} to {move.to.value!r} is illegal"
        state = move.to
    if state is not record.status:
        return f"history ends in {state.value!r} but status is {record.status.value!r}"
    return None


_TRIGGERS = {trigger.value: trigger for trigger in Trigger}
