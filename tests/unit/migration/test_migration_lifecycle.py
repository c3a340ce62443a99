"""One test per row of the "Lifecycle and secrets" table of docs/migration.md: code written for
aumai-handoff keeps its semantics (no expiry, informational deadlines, the payload reaching the
receiver) and opts into the rest.

`test_every_lifecycle_row_has_a_test` keeps the table and this file in step.
"""

from __future__ import annotations

import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import engine
from engine import HandoffManager, HandoffRequest, HandoffStatus
from engine.errors import HandoffExpired, LifecycleError, UsageError
from engine.redaction import REDACTED
from engine.runtime.engine import Engine

ROOT = Path(__file__).resolve().parents[3]
BANKING = ROOT / "configs" / "banking"
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _request(**fields: object) -> HandoffRequest:
    return HandoffRequest.model_validate(
        {"from_agent": "coordinator", "to_agent": "analyst", "task_description": "Analyze",
         **fields})


def test_every_lifecycle_row_has_a_test() -> None:
    page = (ROOT / "docs" / "migration.md").read_text(encoding="utf-8")
    section = page.split("## Lifecycle and secrets")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (L\d+) \|", section, flags=re.MULTILINE)
    assert rows == [f"L{n}" for n in range(1, len(rows) + 1)] and len(rows) >= 6
    tests = {name.split("_")[1].upper() for name in globals() if name.startswith("test_l")}
    assert tests == set(rows)


def test_l1_a_plain_manager_never_expires_a_pending_record() -> None:
    clock = Clock()
    manager = HandoffManager(clock=clock)
    record_id = manager.create_handoff(_request()).record_id
    clock.now += timedelta(days=30)
    assert manager.expire_overdue() == []
    assert manager.accept(record_id).status is HandoffStatus.accepted
    timed = HandoffManager(clock=clock, pending_timeout_s=30)
    late = timed.create_handoff(_request()).record_id
    clock.now += timedelta(seconds=31)
    assert [r.record_id for r in timed.expire_overdue()] == [late]


def test_l2_none_and_infinity_mean_never_and_bad_values_are_named() -> None:
    for never in (None, float("inf")):
        assert HandoffManager(pending_timeout_s=never).pending_timeout is None
    with pytest.raises(UsageError, match=r"pending_timeout_s must be > 0 .*got -1"):
        HandoffManager(pending_timeout_s=-1)


def test_l3_a_deadline_informs_unless_deadlines_expire() -> None:
    clock = Clock()
    managers = {name: HandoffManager(clock=clock, deadlines=name) for name in ("inform", "expire")}
    ids = {}
    for name, manager in managers.items():
        ids[name] = manager.create_handoff(_request(deadline=clock.now + timedelta(seconds=1)))
        manager.accept(ids[name].record_id)
        manager.start(ids[name].record_id)
    clock.now += timedelta(seconds=1.5)  # the task overran its deadline by half a second
    done = managers["inform"].complete(ids["inform"].record_id, {"summary": "done"})
    assert (done.status, done.result) == (HandoffStatus.completed, {"summary": "done"})
    with pytest.raises(HandoffExpired, match="deadline"):
        managers["expire"].complete(ids["expire"].record_id, {"summary": "done"})


def test_l4_seed_value_error_handlers_do_not_swallow_an_expiry() -> None:
    clock = Clock()
    manager = HandoffManager(clock=clock, pending_timeout_s=1)
    record_id = manager.create_handoff(_request()).record_id
    clock.now += timedelta(seconds=2)
    with pytest.raises(HandoffExpired) as raised:
        try:
            manager.accept(record_id)
        except ValueError:
            pytest.fail("an expiry was caught as the seed's ValueError")
    assert isinstance(raised.value, LifecycleError) and engine.HandoffExpired is HandoffExpired
    with pytest.raises(ValueError, match="Cannot accept handoff in state 'failed'"):
        manager.accept(record_id)


def test_l5_an_engine_keeps_its_configs_timeouts(tmp_path: Path) -> None:
    with Engine(BANKING, sweep_interval_s=None) as built:
        assert built.manager.pending_timeout == timedelta(seconds=20)  # banking's own value
        assert built.manager.expiry.deadlines.value == "inform"
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    root = folder / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8").replace(
        "pending_timeout_s: 20", "pending_timeout_s: null\n  deadlines: expire"),
        encoding="utf-8")
    with Engine(folder, sweep_interval_s=None) as built:
        assert built.manager.pending_timeout is None
        assert built.manager.expiry.deadlines.value == "expire"


def test_l6_the_receiver_gets_the_secret_the_store_does_not() -> None:
    manager = HandoffManager()
    created = manager.create_handoff(_request(context={"pin": "4321", "otp": "918273"}))
    assert manager.get(created.record_id).request.context == {"pin": "4321", "otp": "918273"}
    assert manager.store.get(created.record_id).request.context == {
        "pin": REDACTED, "otp": REDACTED}
    assert "4321" not in repr(manager.export())
    hidden = HandoffManager(deliver="redacted")
    record = hidden.create_handoff(_request(context={"pin": "4321"}))
    assert record.request.context == {"pin": REDACTED}
