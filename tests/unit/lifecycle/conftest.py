"""Lifecycle test helpers: a clock the test moves by hand, and requests and managers on it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest

from engine.lifecycle import HandoffManager, HandoffRequest, HandoffStatus, Trigger

START = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

PATHS: dict[HandoffStatus, tuple[Trigger, ...]] = {
    HandoffStatus.pending: (),
    HandoffStatus.accepted: (Trigger.accept,),
    HandoffStatus.in_progress: (Trigger.accept, Trigger.start),
    HandoffStatus.completed: (Trigger.accept, Trigger.complete),
    HandoffStatus.rejected: (Trigger.reject,),
    HandoffStatus.failed: (Trigger.accept, Trigger.fail),
}
"""A shortest way from creation to each state."""


class FakeClock:
    """A clock that only moves when the test says so (1 ms per reading, to order moves)."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def manager(clock: FakeClock) -> HandoffManager:
    return HandoffManager(clock=clock, pending_timeout_s=30, deadlines="expire",
                          config_version="cfg-1", actor="t")


def request(**fields: object) -> HandoffRequest:
    values: dict[str, object] = {
        "from_agent": "triage",
        "to_agent": "fraud",
        "task_description": "Block the stolen card",
    }
    values.update(fields)
    return HandoffRequest.model_validate(values)


def reach_state(manager: HandoffManager, state: HandoffStatus) -> str:
    """Create a record and move it to `state`; returns its id."""
    record_id = manager.create_handoff(request()).record_id
    for trigger in PATHS[state]:
        manager.move(record_id, trigger, reason="on purpose", result={"done": True})
    return record_id


@pytest.fixture
def reach(manager: HandoffManager) -> Callable[[HandoffStatus], str]:
    return lambda state: reach_state(manager, state)
