"""Hypothesis drives HandoffManager with random moves, clock jumps and sweeps, and checks it
against a reference model small enough to be obviously right."""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
)

from engine.errors import HandoffExpired, IllegalTransition, RecordNotFound
from engine.lifecycle import HandoffManager, HandoffRequest, Trigger
from engine.stores import MemoryStore, SQLiteStore, Store

TIMEOUT_S = 30
LIVE = {"pending", "accepted", "in_progress"}
MODEL_MOVES = {
    ("pending", "accept"): "accepted",
    ("pending", "reject"): "rejected",
    ("accepted", "start"): "in_progress",
    ("accepted", "complete"): "completed",
    ("in_progress", "complete"): "completed",
    ("accepted", "fail"): "failed",
    ("in_progress", "fail"): "failed",
    **{(state, "cancel"): "failed" for state in LIVE},
    **{(state, "expire"): "failed" for state in LIVE},
}


class ManagerVersusModel(RuleBasedStateMachine):
    records = Bundle("records")

    def make_store(self) -> Store:
        return MemoryStore()

    def __init__(self) -> None:
        super().__init__()
        self.now = datetime(2026, 1, 1, tzinfo=timezone.utc)
        self.store = self.make_store()
        self.manager = HandoffManager(
            store=self.store, clock=lambda: self.now, pending_timeout_s=TIMEOUT_S,
            deadlines="expire",
        )
        # record id -> [state, created, deadline, number of moves]
        self.model: dict[str, list[object]] = {}

    @rule(target=records, deadline_s=st.one_of(st.none(), st.integers(1, 40)))
    def create(self, deadline_s: int | None) -> str:
        deadline = None if deadline_s is None else self.now + timedelta(seconds=deadline_s)
        request = HandoffRequest(
            from_agent="a", to_agent="b", task_description="t", deadline=deadline
        )
        record = self.manager.create_handoff(request)
        self.model[record.record_id] = ["pending", self.now, deadline, 1]
        return record.record_id

    @rule(record_id=records, trigger=st.sampled_from([t for t in Trigger if t != Trigger.expire]))
    def move(self, record_id: str, trigger: Trigger) -> None:
        entry = self.model[record_id]
        if record_id in self.overdue():  # expired first, then the move is refused
            with pytest.raises(HandoffExpired):
                self.manager.move(record_id, trigger, reason="r", result={"x": 1})
            entry[0], entry[3] = "failed", int(str(entry[3])) + 1
            return
        expected = MODEL_MOVES.get((str(entry[0]), trigger.value))
        if expected is None:
            with pytest.raises(IllegalTransition):
                self.manager.move(record_id, trigger, reason="r", result={"x": 1})
            return
        record = self.manager.move(record_id, trigger, reason="r", result={"x": 1})
        assert record.status.value == expected
        entry[0] = expected
        entry[3] = int(str(entry[3])) + 1

    def overdue(self) -> set[str]:
        due = set()
        for record_id, (state, created, deadline, _) in self.model.items():
            if state not in LIVE:
                continue
            late = deadline is not None and deadline <= self.now  # type: ignore[operator]
            stale = state == "pending" and self.now - created > timedelta(seconds=TIMEOUT_S)  # type: ignore[operator]
            if late or stale:
                due.add(record_id)
        return due

    @rule(seconds=st.sampled_from([0, 1, 5, 10, 29, 30, 31]))  # hits the exact limits
    def time_passes(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)

    @rule(seconds=st.sampled_from([0, 1, 5, 10, 29, 30, 31]))
    def time_passes_and_sweep(self, seconds: int) -> None:
        self.now += timedelta(seconds=seconds)
        due = self.overdue()
        expired = {record.record_id for record in self.manager.expire_overdue()}
        assert expired == due
        for record_id in due:
            self.model[record_id][0] = "failed"
            self.model[record_id][3] = int(str(self.model[record_id][3])) + 1

    @rule(record_id=consumes(records))
    def unknown_ids_stay_unknown(self, record_id: str) -> None:
        with pytest.raises(RecordNotFound):
            self.manager.get(record_id + "-missing")

    @invariant()
    def agrees_with_the_model(self) -> None:
        records = self.manager.list_records()
        assert [r.record_id for r in records] == list(self.model)
        for record in records:
            state, _, _, moves = self.model[record.record_id]
            assert record.status.value == state
            assert record.version == moves == len(record.history)
            chain = [None] + [m.to for m in record.history]
            assert [m.from_ for m in record.history] == chain[:-1]
            for m in record.history[1:]:
                assert MODEL_MOVES[(m.from_.value, m.trigger)] == m.to.value  # type: ignore[union-attr]


    def teardown(self) -> None:
        self.store.close()


class ManagerOnSQLiteVersusModel(ManagerVersusModel):
    """The same model, with records in a SQLite file (a fresh one per example)."""

    def make_store(self) -> Store:
        self.folder = tempfile.TemporaryDirectory()
        return SQLiteStore(Path(self.folder.name) / "records.db", synchronous="NORMAL")

    def teardown(self) -> None:
        super().teardown()
        self.folder.cleanup()


ManagerVersusModel.TestCase.settings = settings(
    max_examples=60,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
ManagerOnSQLiteVersusModel.TestCase.settings = settings(
    max_examples=20,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestManagerVersusModel = ManagerVersusModel.TestCase
TestManagerOnSQLiteVersusModel = ManagerOnSQLiteVersusModel.TestCase
