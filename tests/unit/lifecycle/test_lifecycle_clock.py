"""Move times never go backwards: the steady default clock, and the per-record floor that
holds even for an injected clock that steps back."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from engine.lifecycle import HandoffManager, HandoffStatus
from engine.lifecycle.clock import SteadyClock
from tests.unit.lifecycle.conftest import START, request


class SteppingWall:
    """A wall clock the test sets; a monotonic clock that only moves forward with it."""

    def __init__(self) -> None:
        self.wall = START
        self.mono = 1000.0

    def tick(self, seconds: float) -> None:
        self.wall += timedelta(seconds=seconds)
        self.mono += seconds

    def step_wall(self, seconds: float) -> None:  # NTP or an operator sets the time
        self.wall += timedelta(seconds=seconds)


def test_a_manager_on_a_clock_that_steps_back_keeps_each_history_in_order() -> None:
    readings = iter([START, START - timedelta(hours=1), START - timedelta(hours=2)])
    manager = HandoffManager(clock=lambda: next(readings))
    record = manager.create_handoff(request())
    manager.accept(record.record_id)
    done = manager.start(record.record_id)
    times = [move.at for move in done.history]
    assert times == sorted(times) and times[0] == START
    assert done.updated_at >= done.created_at
    assert done.status is HandoffStatus.in_progress


def test_the_steady_clock_follows_the_wall_clock_until_it_steps_back() -> None:
    fake = SteppingWall()
    clock = SteadyClock(wall=lambda: fake.wall, monotonic=lambda: fake.mono)
    first = clock()
    assert first == START
    fake.tick(5)
    assert clock() == START + timedelta(seconds=5)
    fake.step_wall(-3600)  # the wall clock jumps an hour back
    fake.tick(2)
    stepped = clock()
    assert stepped == START + timedelta(seconds=7)  # kept going at the monotonic pace
    fake.step_wall(3600 + 60)  # and forward past where it was: follow the wall again
    assert clock() == START + timedelta(seconds=67)


def test_the_steady_clock_reads_naive_wall_times_as_utc() -> None:
    clock = SteadyClock(wall=lambda: datetime(2026, 1, 1, 12, 0), monotonic=lambda: 0.0)
    assert clock() == datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def test_the_default_manager_clock_is_steady_and_aware() -> None:
    manager = HandoffManager()
    assert isinstance(manager.clock, SteadyClock)
    readings = [manager.clock() for _ in range(100)]
    assert readings == sorted(readings) and readings[0].tzinfo is not None
