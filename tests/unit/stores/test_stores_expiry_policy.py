"""Expiry is opt-in on every store: a seed-style `HandoffManager(store=...)` expires nothing,
a pending timeout does not make deadlines expire, and deadlines that expire do not bring a
pending timeout (sweeps and moves agree on memory, SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from engine.lifecycle import FailureReason, HandoffManager, HandoffRequest, HandoffStatus
from engine.stores import Store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
YEAR = timedelta(days=365)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _request(deadline: datetime | None = None) -> HandoffRequest:
    return HandoffRequest(from_agent="triage", to_agent="fraud",
                          task_description="Block the stolen card", deadline=deadline)


def _overdue_pair(manager: HandoffManager, clock: Clock) -> tuple[str, str]:
    """A record pending for a year, and an in-progress one a year past its deadline."""
    waiting = manager.create_handoff(_request()).record_id
    working = manager.create_handoff(_request(deadline=T0 + timedelta(seconds=5))).record_id
    manager.accept(working)
    manager.start(working)
    clock.now = T0 + YEAR
    return waiting, working


def test_a_seed_style_manager_never_expires_a_record(store: Store) -> None:
    clock = Clock()
    manager = HandoffManager(store=store, clock=clock)
    waiting, working = _overdue_pair(manager, clock)
    assert manager.expire_overdue() == []
    assert manager.accept(waiting).status is HandoffStatus.accepted
    done = manager.complete(working, {"blocked": True})  # overran its deadline by a year
    assert (done.status, done.result) == (HandoffStatus.completed, {"blocked": True})
    assert store.get(working).result == {"blocked": True}


@pytest.mark.parametrize("never", [None, float("inf"), 1e300])
def test_none_and_infinity_mean_never(store: Store, never: float | None) -> None:
    clock = Clock()
    manager = HandoffManager(store=store, clock=clock, pending_timeout_s=never,
                             deadlines="expire")
    assert manager.pending_timeout is None
    waiting, working = _overdue_pair(manager, clock)
    expired = manager.expire_overdue()  # only the deadline applies
    assert [(r.record_id, r.failure) for r in expired] == [(working, FailureReason.deadline)]
    assert store.get(waiting).status is HandoffStatus.pending


def test_a_pending_timeout_leaves_deadlines_informational(store: Store) -> None:
    clock = Clock()
    manager = HandoffManager(store=store, clock=clock, pending_timeout_s=30)
    waiting, working = _overdue_pair(manager, clock)
    expired = manager.expire_overdue()
    assert [(r.record_id, r.failure) for r in expired] == [(waiting, FailureReason.timeout)]
    assert manager.complete(working, {"late": True}).status is HandoffStatus.completed
    assert store.get(working).result == {"late": True}
