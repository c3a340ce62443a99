"""HandoffManager: the seed 000 API and semantics, plus cancel, expiry and thread safety."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from engine.errors import (
    IllegalTransition,
    RecordImportError,
    RecordNotFound,
    StoreError,
    UsageError,
)
from engine.lifecycle import (
    FailureReason,
    HandoffManager,
    HandoffRecord,
    HandoffRequest,
    HandoffStatus,
    MoveOrder,
    Sweeper,
    Trigger,
)
from engine.stores import SQLiteStore

S = HandoffStatus


def request(**fields: Any) -> HandoffRequest:
    values = {"from_agent": "triage", "to_agent": "fraud", "task_description": "Block the card"}
    return HandoffRequest.model_validate({**values, **fields})


def test_seed_defaults_work_without_arguments() -> None:
    manager = HandoffManager()
    record = manager.create_handoff(request())
    assert record.status is S.pending and record.response is None and record.result == {}
    assert len(record.record_id) == 36 and record.version == 1
    assert record.created_at.tzinfo is not None
    accepted = manager.accept(record.record_id)
    assert accepted.response is not None
    assert accepted.response.accepted
    assert accepted.response.reason == "Accepted by receiving agent."
    assert manager.start(record.record_id).status is S.in_progress
    done = manager.complete(record.record_id, {"summary": "ok"})
    assert (done.status, done.result) == (S.completed, {"summary": "ok"})
    assert manager.get(record.record_id) == done
    assert record.status is S.pending  # the returned record is a frozen snapshot


def test_reject_and_fail_store_the_reason(manager: HandoffManager) -> None:
    rejected = manager.reject(manager.create_handoff(request()).record_id, "not my area")
    assert rejected.response is not None
    assert (rejected.response.accepted, rejected.response.reason) == (False, "not my area")
    assert rejected.failure is None
    record_id = manager.create_handoff(request()).record_id
    manager.accept(record_id)
    failed = manager.fail(record_id, "backend down")
    assert failed.response is not None and failed.response.reason == "backend down"
    assert (failed.status, failed.failure) == (S.failed, FailureReason.error)


def test_unknown_id_is_a_key_error(manager: HandoffManager) -> None:
    for call in (
        lambda: manager.get("h-404"),
        lambda: manager.accept("h-404"),
        lambda: manager.complete("h-404", {}),
        lambda: manager.cancel("h-404"),
    ):
        with pytest.raises(KeyError) as caught:
            call()
        assert isinstance(caught.value, RecordNotFound)
        assert str(caught.value) == "No handoff record found with id 'h-404'."


def test_illegal_move_is_a_value_error_naming_record_state_and_trigger(
    manager: HandoffManager,
) -> None:
    record_id = manager.create_handoff(request()).record_id
    manager.reject(record_id, "no")
    message = rf"Cannot accept handoff in state 'rejected'\. \(handoff {record_id}\)"
    with pytest.raises(ValueError, match=message):
        manager.accept(record_id)
    with pytest.raises(IllegalTransition):
        manager.move(record_id, "start")


def test_history_config_version_and_actor(manager: HandoffManager) -> None:
    record = manager.create_handoff(request(), config_version="cfg-2", actor="router")
    manager.accept(record.record_id, actor="fraud")
    done = manager.complete(record.record_id, {})
    assert done.config_version == "cfg-2"
    assert manager.create_handoff(request()).config_version == "cfg-1"
    moves = [(m.from_, m.to, m.trigger, m.actor) for m in done.history]
    assert moves == [
        (None, S.pending, "create", "router"),
        (S.pending, S.accepted, "accept", "fraud"),
        (S.accepted, S.completed, "complete", "t"),
    ]
    assert [m.at for m in done.history] == sorted(m.at for m in done.history)
    assert all(m.at.utcoffset() == timedelta(0) for m in done.history)


def test_list_records_oldest_first_and_by_status(manager: HandoffManager) -> None:
    ids = [manager.create_handoff(request(task_description=f"t{i}")).record_id for i in range(4)]
    manager.accept(ids[2])
    assert [r.record_id for r in manager.list_records()] == ids
    assert [r.record_id for r in manager.list_records(S.pending)] == [ids[0], ids[1], ids[3]]
    assert [r.record_id for r in manager.list_records(status=S.accepted)] == [ids[2]]


def test_export_import_round_trip(manager: HandoffManager) -> None:
    record_id = manager.create_handoff(request(context={"k": [1, 2]})).record_id
    manager.accept(record_id)
    exported = manager.export()
    assert exported[0]["history"][1]["from"] == "pending"
    other = HandoffManager()
    other.import_records(exported)
    assert other.get(record_id) == manager.get(record_id)
    assert other.export() == exported


def test_import_overwrites_by_id_as_the_seed_did_unless_told_to_keep(
    manager: HandoffManager,
) -> None:
    record_id = manager.create_handoff(request()).record_id
    genuine = manager.complete(manager.accept(record_id).record_id, {"ok": True})
    forged = {**manager.export()[0], "status": "pending", "version": 1, "result": {},
              "response": None, "failure": None}
    forged["history"] = forged["history"][:1]
    manager.import_records([forged], replace=False)
    assert manager.get(record_id) == genuine
    manager.import_records([forged])
    assert manager.get(record_id).status is S.pending


def test_import_is_all_or_nothing_and_names_the_bad_item(manager: HandoffManager) -> None:
    good = [*manager.export(), manager.create_handoff(request()).model_dump(mode="json")]
    bad = dict(good[0], request={"from_agent": "a"})
    target = HandoffManager()
    with pytest.raises(RecordImportError) as caught:
        target.import_records([good[0], bad])
    assert caught.value.index == 1
    assert "request.to_agent" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert target.list_records() == []


def test_cancel_ends_any_live_handoff(
    manager: HandoffManager, reach: Callable[[HandoffStatus], str]
) -> None:
    for state in (S.pending, S.accepted, S.in_progress):
        cancelled = manager.cancel(reach(state), "caller hung up")
        assert (cancelled.status, cancelled.failure) == (S.failed, FailureReason.cancelled)
    with pytest.raises(IllegalTransition, match="Cannot cancel handoff in state 'completed'"):
        manager.cancel(reach(S.completed))


def test_expire_overdue_pending_and_deadlines(manager: HandoffManager, clock: Any) -> None:
    stale = manager.create_handoff(request()).record_id
    deadline = clock.now + timedelta(seconds=10)
    working = manager.create_handoff(request(deadline=deadline)).record_id
    manager.accept(working)
    fresh_accepted = manager.create_handoff(request()).record_id
    manager.accept(fresh_accepted)
    assert manager.expire_overdue() == []
    clock.advance(11)
    expired = manager.sweep()
    assert [(r.record_id, r.failure) for r in expired] == [(working, FailureReason.deadline)]
    clock.advance(20)
    expired = manager.expire_overdue()
    assert [(r.record_id, r.failure) for r in expired] == [(stale, FailureReason.timeout)]
    assert expired[0].history[-1].reason == "Pending for more than 30s."
    assert manager.get(fresh_accepted).status is S.accepted  # accepted, no deadline: stays
    assert manager.expire_overdue() == []


def test_naive_deadline_is_read_as_utc(manager: HandoffManager, clock: Any) -> None:
    naive = (clock.now + timedelta(seconds=5)).replace(tzinfo=None)
    record = manager.create_handoff(request(deadline=naive))
    assert record.request.deadline == naive.replace(tzinfo=timezone.utc)
    clock.advance(4)
    assert manager.expire_overdue() == []
    clock.advance(2)
    assert [r.failure for r in manager.expire_overdue()] == [FailureReason.deadline]


def test_move_many_is_all_or_nothing(manager: HandoffManager) -> None:
    a = manager.create_handoff(request()).record_id
    b = manager.create_handoff(request()).record_id
    moved = manager.move_many(
        [MoveOrder(a, Trigger.accept), MoveOrder(a, Trigger.start), MoveOrder(b, Trigger.accept)]
    )
    assert [r.status for r in moved] == [S.accepted, S.in_progress, S.accepted]
    assert manager.get(a).version == 3
    with pytest.raises(IllegalTransition):
        manager.move_many([MoveOrder(b, Trigger.start), MoveOrder(a, Trigger.accept)])
    assert manager.get(b).status is S.accepted
    (done,) = manager.move_many([MoveOrder(b, "complete", result={"ok": 1})])  # type: ignore[arg-type]
    assert (done.status, done.result) == (S.completed, {"ok": 1})


def test_optional_arguments_are_keyword_only_and_checked() -> None:
    with pytest.raises(TypeError):
        HandoffManager(None)  # type: ignore[misc]
    with pytest.raises(UsageError, match="pending_timeout_s"):
        HandoffManager(pending_timeout_s=0)
    with pytest.raises(UsageError, match="retries"):
        HandoffManager(retries=-1)
    with pytest.raises(UsageError, match="HandoffRequest"):
        HandoffManager().create_handoff({"from_agent": "a"})  # type: ignore[arg-type]


def test_concurrent_moves_on_one_record_serialize(manager: HandoffManager) -> None:
    record_id = manager.create_handoff(request()).record_id
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def race(trigger: Trigger) -> None:
        barrier.wait()
        try:
            manager.move(record_id, trigger, reason="race")
            outcomes.append(trigger.value)
        except IllegalTransition:
            outcomes.append("illegal")

    threads = [threading.Thread(target=race, args=(t,)) for t in [Trigger.accept] * 4 + [
        Trigger.reject] * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = manager.get(record_id)
    assert outcomes.count("illegal") == 7
    assert len(final.history) == 2 and final.version == 2


def test_many_threads_many_records_lose_no_move() -> None:
    manager = HandoffManager()
    ids = [manager.create_handoff(request()).record_id for _ in range(50)]

    def drive(offset: int) -> None:
        for record_id in ids[offset::4]:
            manager.accept(record_id)
            manager.start(record_id)
            manager.complete(record_id, {"by": offset})

    threads = [threading.Thread(target=drive, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = manager.list_records()
    assert all(r.status is S.completed and r.version == 4 for r in records)


def test_background_sweeper_expires_and_stops_cleanly() -> None:
    now = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    manager = HandoffManager(clock=lambda: now[0], pending_timeout_s=1)
    record_id = manager.create_handoff(request()).record_id
    now[0] += timedelta(seconds=5)
    with Sweeper(manager, interval_s=0.01) as sweeper:
        for _ in range(500):
            if manager.get(record_id).status is S.failed:
                break
            threading.Event().wait(0.01)
    assert not sweeper.running
    assert manager.get(record_id).failure is FailureReason.timeout
    assert sweeper.expired == 1 and sweeper.sweeps >= 1 and sweeper.last_error is None


def test_record_is_frozen_and_round_trips(manager: HandoffManager) -> None:
    record = manager.accept(manager.create_handoff(request()).record_id)
    with pytest.raises(ValueError, match="frozen"):
        record.status = S.failed  # type: ignore[misc]
    assert HandoffRecord.model_validate(record.model_dump(mode="json")) == record
    assert HandoffRecord.model_validate_json(record.model_dump_json()) == record


def test_sweeper_survives_a_failing_sweep(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "records.db")
    manager = HandoffManager(store=store, pending_timeout_s=30)
    store.close()  # every sweep now fails with a StoreError
    sweeper = Sweeper(manager, interval_s=0.01).start()
    for _ in range(500):
        if sweeper.last_error is not None:
            break
        threading.Event().wait(0.01)
    assert sweeper.running  # the failure is kept, the thread goes on
    sweeper.stop()
    assert isinstance(sweeper.last_error, StoreError)
    assert "closed" in str(sweeper.last_error)
    assert not sweeper.running
    with pytest.raises(UsageError, match="interval"):
        Sweeper(manager, interval_s=0)


def _deep(levels: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for _ in range(levels):
        data = {"a": data}
    return data


def _cyclic() -> dict[str, Any]:
    data: dict[str, Any] = {}
    data["self"] = data
    return data


@pytest.mark.parametrize(
    ("result", "says"),
    [
        (_deep(150), "nested deeper than 100 levels"),
        (_cyclic(), "nested deeper than 100 levels"),
        ({"x": "\ud800"}, "result.x: holds a lone surrogate"),
        ({"k": {"\udc00": 1}}, "result.k: a key holds a lone surrogate"),
    ],
)
def test_a_result_no_store_could_keep_or_read_back_is_refused_on_every_path(
    tmp_path: Path, result: dict[str, Any], says: str
) -> None:
    """The manager's own moves (the pump's bridge and callers without an Engine use them):
    the record stays as it was, and the store still reads back every record."""
    store = SQLiteStore(tmp_path / "records.db")
    manager = HandoffManager(store=store)
    record_id = manager.create_handoff(request()).record_id
    manager.accept(record_id)
    with pytest.raises(UsageError, match=f"cannot complete {record_id}: .*{re.escape(says)}"):
        manager.complete(record_id, result)
    again = HandoffManager(store=SQLiteStore(tmp_path / "records.db"))
    assert again.get(record_id).status is HandoffStatus.accepted
    assert [record.record_id for record in again.list_records()] == [record_id]


def test_results_a_store_serializes_are_kept_as_before(tmp_path: Path) -> None:
    """Only what a store cannot write or read back is refused: tuples, a nesting just under
    the cap, and values the store turns into JSON (a datetime, a dataclass) are kept."""
    from dataclasses import dataclass

    @dataclass
    class Reply:
        text: str

    manager = HandoffManager(store=SQLiteStore(tmp_path / "records.db"))
    record_id = manager.create_handoff(request()).record_id
    manager.accept(record_id)
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    result = {"steps": (1, 2, [3, {"ok": True}]), "deep": _deep(98), "at": when,
              "reply": Reply("done")}
    manager.complete(record_id, result)
    stored = HandoffManager(store=SQLiteStore(tmp_path / "records.db")).get(record_id)
    assert stored.status is HandoffStatus.completed and stored.result is not None
    assert stored.result["steps"] == [1, 2, [3, {"ok": True}]]
    assert stored.result["at"] == "2026-01-02T03:04:05Z"
    assert stored.result["reply"] == {"text": "done"}


def test_a_reason_that_is_not_text_is_refused(manager: HandoffManager) -> None:
    record_id = manager.create_handoff(request()).record_id
    with pytest.raises(UsageError, match="reason: expected a string, got int"):
        manager.reject(record_id, 12345)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="reason: holds a lone surrogate"):
        manager.reject(record_id, "bad \ud800")
    assert manager.get(record_id).status is HandoffStatus.pending
    assert manager.reject(record_id, "caf\u00e9 closed").status is HandoffStatus.rejected
