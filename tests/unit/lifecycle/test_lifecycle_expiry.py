"""A move asked of an overdue record expires it first (audited) and then fails with
`HandoffExpired`, with or without a sweeper running."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from engine.errors import HandoffExpired, IllegalTransition
from engine.lifecycle import FailureReason, HandoffManager, HandoffStatus, MoveOrder, Trigger
from tests.unit.lifecycle.conftest import request


def test_accept_past_the_pending_timeout_expires_the_record_and_raises(
    manager: HandoffManager, clock: Any
) -> None:
    record_id = manager.create_handoff(request()).record_id
    clock.advance(31)
    with pytest.raises(HandoffExpired) as raised:
        manager.accept(record_id)
    error = raised.value
    assert not isinstance(error, (IllegalTransition, ValueError))  # seed handlers miss it
    assert (error.record_id, error.trigger, error.failure) == (record_id, "accept", "timeout")
    assert str(error) == (f"handoff {record_id}: cannot accept: it expired "
                          "(timeout: Pending for more than 30s.)")
    stored = manager.get(record_id)
    assert error.record == stored
    assert (stored.status, stored.failure) == (HandoffStatus.failed, FailureReason.timeout)
    assert [move.trigger for move in stored.history] == ["create", "expire"]
    assert stored.history[-1].actor == "t"


@pytest.mark.parametrize("trigger", [Trigger.start, Trigger.complete, Trigger.fail,
                                     Trigger.cancel])
def test_any_move_past_the_deadline_expires_the_record_first(
    manager: HandoffManager, clock: Any, trigger: Trigger
) -> None:
    deadline = clock.now + timedelta(seconds=5)
    record_id = manager.create_handoff(request(deadline=deadline)).record_id
    manager.accept(record_id)
    clock.advance(6)
    with pytest.raises(HandoffExpired, match=rf"cannot {trigger.value}: it expired \(deadline"):
        manager.move(record_id, trigger, reason="r", result={})
    stored = manager.get(record_id)
    assert (stored.status, stored.failure) == (HandoffStatus.failed, FailureReason.deadline)
    assert stored.history[-1].trigger == "expire"


def test_a_move_in_time_is_not_affected(manager: HandoffManager, clock: Any) -> None:
    record_id = manager.create_handoff(request()).record_id
    clock.advance(29)
    assert manager.accept(record_id).status is HandoffStatus.accepted
    clock.advance(3600)  # accepted without a deadline: never overdue
    assert manager.complete(record_id, {"ok": True}).status is HandoffStatus.completed


def test_move_many_with_an_overdue_record_expires_it_and_applies_nothing_else(
    manager: HandoffManager, clock: Any
) -> None:
    stale = manager.create_handoff(request()).record_id
    clock.advance(20)
    fresh = manager.create_handoff(request()).record_id
    clock.advance(11)
    with pytest.raises(HandoffExpired) as raised:
        manager.move_many([MoveOrder(fresh, Trigger.accept), MoveOrder(stale, Trigger.accept)])
    assert raised.value.record_id == stale
    assert manager.get(stale).failure is FailureReason.timeout
    assert manager.get(fresh).status is HandoffStatus.pending
