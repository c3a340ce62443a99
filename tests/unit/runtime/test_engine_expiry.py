"""Engine expires overdue handoffs: a sweeper thread by default, and any move on an overdue
record; both emit `handoff_moved` for the expiry."""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError, HandoffExpired, UsageError
from engine.lifecycle import FailureReason, HandoffStatus
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from tests.patience import HANG_S

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


def soon(seconds: float) -> datetime:
    return datetime.now(timezone.utc) + timedelta(seconds=seconds)


def with_policies(folder: Path, *lines: str) -> Path:
    """A copy of the banking set in `folder` with `lines` added to its `policies`."""
    copy = folder / "banking"
    shutil.copytree(BANKING, copy)
    root = copy / "engine.yaml"
    added = "".join(f"  {line}\n" for line in lines)
    root.write_text(root.read_text(encoding="utf-8").replace("policies:\n", "policies:\n" + added),
                    encoding="utf-8")
    return copy


@pytest.fixture
def expiring(tmp_path: Path) -> Path:
    """The banking set with `deadlines: expire`."""
    return with_policies(tmp_path, "deadlines: expire")


def test_an_engine_sweeps_by_default_and_close_stops_the_sweeper() -> None:
    engine = Engine(BANKING)
    sweeper = engine.sweeper
    assert sweeper is not None and sweeper.running and sweeper.interval_s == 1.0
    engine.close()
    assert not sweeper.running


def test_the_sweeper_expires_an_overdue_handoff_and_emits_the_move(
    wait_for: Callable[..., None], expiring: Path,
) -> None:
    moved: list[tuple[Any, str]] = []
    with Engine(expiring, sweep_interval_s=0.02) as engine:
        engine.on("handoff_moved",
                  lambda event: moved.append((event.data["record"],
                                              threading.current_thread().name)))
        outcome = engine.handoff("my card was stolen", sender="concierge", deadline=soon(0.05))
        record_id = outcome.record.record_id
        wait_for(lambda: engine.manager.get(record_id).status is HandoffStatus.failed,
                 "the sweeper to expire the handoff")
        wait_for(lambda: moved, "the handoff_moved event")
    record, thread = moved[0]
    assert record.record_id == record_id and record.failure is FailureReason.deadline
    assert thread == "handoff-sweeper"  # off the caller's thread (and off any event loop)


def test_without_a_sweeper_a_move_on_an_overdue_record_expires_it_first(expiring: Path) -> None:
    with Engine(expiring, sweep_interval_s=None) as engine:
        assert engine.sweeper is None
        moved: list[Event] = []
        engine.on("handoff_moved", moved.append)
        outcome = engine.handoff("my card was stolen", sender="concierge",
                                 deadline=soon(-1))
        with pytest.raises(HandoffExpired, match=r"cannot accept: it expired \(deadline"):
            engine.accept(outcome.record.record_id)
        stored = engine.manager.get(outcome.record.record_id)
        assert stored.status is HandoffStatus.failed
        assert [event.data["record"] for event in moved] == [stored]


def test_an_engine_made_inside_a_running_loop_sweeps_off_the_loop(
    wait_for: Callable[..., None], expiring: Path,
) -> None:
    async def main() -> str:
        seen: list[str] = []
        with Engine(expiring, sweep_interval_s=0.02) as engine:
            engine.on("handoff_moved", lambda event: seen.append(
                threading.current_thread().name))
            engine.handoff("my card was stolen", sender="concierge", deadline=soon(0.01))
            while not seen:
                await asyncio.sleep(0.01)  # the loop stays free while the sweeper works
        return seen[0]

    assert asyncio.run(asyncio.wait_for(main(), HANG_S)) == "handoff-sweeper"


def test_a_bad_sweep_interval_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="interval"):
        Engine(BANKING, sweep_interval_s=0)


def test_an_engine_keeps_the_configs_timeouts_where_a_plain_manager_has_none(
    tmp_path: Path,
) -> None:
    with Engine(BANKING, sweep_interval_s=None) as engine:  # banking: pending_timeout_s: 20
        assert engine.manager.pending_timeout == timedelta(seconds=20)
        outcome = engine.handoff("my card was stolen", sender="concierge", deadline=soon(-1))
        accepted = engine.accept(outcome.record.record_id)  # deadlines inform by default
        assert accepted.status is HandoffStatus.accepted
    never = with_policies(tmp_path, "deadlines: expire")
    root = never / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(
        "pending_timeout_s: 20", "pending_timeout_s: null"), encoding="utf-8")
    with Engine(never, sweep_interval_s=None) as engine:
        assert engine.manager.pending_timeout is None
        outcome = engine.handoff("my card was stolen", sender="concierge", deadline=soon(-1))
        with pytest.raises(HandoffExpired, match="deadline"):
            engine.accept(outcome.record.record_id)


def test_a_bad_deadline_policy_in_engine_yaml_is_located(tmp_path: Path) -> None:
    folder = with_policies(tmp_path, "deadlines: sometimes")
    with pytest.raises(ConfigError) as raised:
        Engine(folder, sweep_interval_s=None)
    assert "engine.yaml:" in str(raised.value) and "deadlines" in str(raised.value)
