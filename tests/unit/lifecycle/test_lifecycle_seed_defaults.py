"""Seed 000 semantics by default: no timeouts, deadlines that inform, and an expiry that seed
code catching `ValueError` cannot swallow by accident."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import engine
from engine.errors import HandoffExpired, IllegalTransition, LifecycleError, UsageError
from engine.lifecycle import Deadlines, FailureReason, HandoffManager, HandoffStatus, Sweeper
from tests.unit.lifecycle.conftest import FakeClock, request


def test_the_defaults_expire_nothing_however_long_a_record_waits(clock: FakeClock) -> None:
    manager = HandoffManager(clock=clock)
    assert (manager.pending_timeout, manager.expiry.deadlines) == (None, Deadlines.inform)
    record_id = manager.create_handoff(request(deadline=clock.now)).record_id
    clock.advance(10 * 365 * 86_400)
    assert manager.expire_overdue() == []
    assert manager.accept(record_id).status is HandoffStatus.accepted


def test_an_in_progress_task_that_overruns_its_deadline_keeps_its_result(
    clock: FakeClock,
) -> None:
    manager = HandoffManager(clock=clock, pending_timeout_s=30)
    deadline = clock.now + timedelta(seconds=10)
    record_id = manager.create_handoff(request(deadline=deadline)).record_id
    manager.accept(record_id)
    manager.start(record_id)
    clock.advance(10.5)  # half a second late
    assert manager.expire_overdue() == []
    done = manager.complete(record_id, {"report": "ready"})
    assert (done.status, done.result, done.failure) == (HandoffStatus.completed,
                                                        {"report": "ready"}, None)
    assert done.request.deadline == deadline  # still there for the receiver to read


@pytest.mark.parametrize("value", [float("inf"), None, 1e300])
def test_infinity_is_never_not_an_overflow(value: float | None) -> None:
    assert HandoffManager(pending_timeout_s=value).pending_timeout is None


@pytest.mark.parametrize(("value", "message"), [
    (0, "pending_timeout_s must be > 0"), (-1.5, "pending_timeout_s must be > 0"),
    (float("nan"), "pending_timeout_s must be > 0"), ("30", "a number of seconds"),
    (True, "a number of seconds"),
])
def test_a_bad_timeout_is_a_usage_error_naming_it(value: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        HandoffManager(pending_timeout_s=value)


def test_a_bad_deadline_policy_is_a_usage_error_listing_the_choices() -> None:
    with pytest.raises(UsageError, match="deadlines must be one of 'inform', 'expire', got 'x'"):
        HandoffManager(deadlines="x")


def test_seed_code_catching_value_error_does_not_swallow_an_expiry(clock: FakeClock) -> None:
    manager = HandoffManager(clock=clock, pending_timeout_s=30)
    record_id = manager.create_handoff(request()).record_id
    clock.advance(31)

    def seed_style_accept() -> str:
        try:
            manager.accept(record_id)
        except ValueError:  # what seed 000 documents for a move in the wrong state
            return "wrong state"
        return "accepted"

    with pytest.raises(HandoffExpired) as raised:
        seed_style_accept()
    assert isinstance(raised.value, LifecycleError)
    assert raised.value.failure == FailureReason.timeout.value
    with pytest.raises(ValueError):  # an illegal move is still the seed's ValueError
        manager.accept(record_id)


def test_the_error_names_stay_importable_where_they_were() -> None:
    assert engine.HandoffExpired is HandoffExpired
    assert engine.IllegalTransition is IllegalTransition
    assert issubclass(IllegalTransition, ValueError)
    assert not issubclass(HandoffExpired, (IllegalTransition, ValueError))


@pytest.mark.parametrize("limit", [None, float("inf")])
def test_a_sweeper_stops_with_no_limit_on_the_wait(limit: float | None) -> None:
    sweeper = Sweeper(HandoffManager(), interval_s=0.01).start()
    sweeper.stop(timeout_s=limit)  # was OverflowError for infinity
    assert not sweeper.running
