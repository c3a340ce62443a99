"""The lifecycle table: every (state x trigger) pair, the shared machine and the diagram."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.errors import IllegalTransition
from engine.lifecycle import HandoffManager, HandoffStatus, Trigger, mermaid
from engine.lifecycle.table import MACHINE, TRANSITIONS, destination, rows
from engine.records.models import FailureReason

S = HandoffStatus
T = Trigger

EXPECTED: dict[tuple[HandoffStatus, Trigger], HandoffStatus] = {
    (S.pending, T.accept): S.accepted,
    (S.pending, T.reject): S.rejected,
    (S.accepted, T.start): S.in_progress,
    (S.accepted, T.complete): S.completed,
    (S.in_progress, T.complete): S.completed,
    (S.accepted, T.fail): S.failed,
    (S.in_progress, T.fail): S.failed,
    (S.pending, T.expire): S.failed,
    (S.accepted, T.expire): S.failed,
    (S.in_progress, T.expire): S.failed,
    (S.pending, T.cancel): S.failed,
    (S.accepted, T.cancel): S.failed,
    (S.in_progress, T.cancel): S.failed,
}
"""Written out by hand from seed 000 plus expiry and cancellation: the table must match it."""

PAIRS = [(state, trigger) for state in HandoffStatus for trigger in Trigger]
PAIR_IDS = [f"{state.value}-{trigger.value}" for state, trigger in PAIRS]


@pytest.mark.parametrize(("state", "trigger"), PAIRS, ids=PAIR_IDS)
def test_every_state_and_trigger(
    manager: HandoffManager,
    reach: Callable[[HandoffStatus], str],
    state: HandoffStatus,
    trigger: Trigger,
) -> None:
    record_id = reach(state)
    before = manager.get(record_id)
    assert before.status is state
    expected = EXPECTED.get((state, trigger))
    if expected is None:
        with pytest.raises(IllegalTransition) as caught:
            manager.move(record_id, trigger, reason="why", result={})
        assert str(caught.value) == (
            f"Cannot {trigger.value} handoff in state '{state.value}'. (handoff {record_id})"
        )
        assert isinstance(caught.value, ValueError)
        assert (caught.value.record_id, caught.value.state) == (record_id, state.value)
        assert manager.get(record_id) == before  # nothing changed
        return
    after = manager.move(record_id, trigger, reason="why", result={"r": 1})
    assert after.status is expected
    assert after.version == before.version + 1
    assert after.history[:-1] == before.history
    last = after.history[-1]
    assert (last.from_, last.to, last.trigger, last.actor) == (state, expected, trigger.value, "t")
    assert last.at == after.updated_at
    assert manager.get(record_id) == after
    if expected is S.failed:
        assert after.failure is not None
        assert after.response is not None and not after.response.accepted


def test_table_matches_the_documented_moves() -> None:
    assert {(src, trg): dst for trg, src, dst in rows()} == EXPECTED
    for state, trigger in PAIRS:
        assert destination(state, trigger) == EXPECTED.get((state, trigger))


def test_one_shared_machine_without_models_or_auto_transitions() -> None:
    assert MACHINE.models == []
    assert not MACHINE.auto_transitions
    assert set(MACHINE.events) == {trigger.value for trigger in Trigger}
    assert set(MACHINE.states) == {state.value for state in HandoffStatus}


def test_records_get_no_machine(
    manager: HandoffManager, reach: Callable[[HandoffStatus], str]
) -> None:
    record = manager.get(reach(S.in_progress))
    assert MACHINE.models == []  # moving records never attaches them to the machine
    assert not hasattr(record, "trigger") and not hasattr(record, "state")


def test_mermaid_lists_every_row_once() -> None:
    diagram = mermaid().splitlines()
    assert diagram[0] == "stateDiagram-v2"
    edges = [line.strip() for line in diagram[1:]]
    for trigger, source, dest in rows():
        assert edges.count(f"{source.value} --> {dest.value}: {trigger.value}") == 1
    assert "[*] --> pending: create" in edges
    terminal = {f"{s.value} --> [*]" for s in (S.completed, S.rejected, S.failed)}
    assert terminal <= set(edges)
    assert len(edges) == len(list(rows())) + 1 + len(terminal)


def test_failure_reasons_are_typed(
    manager: HandoffManager, reach: Callable[[HandoffStatus], str]
) -> None:
    failed = manager.fail(reach(S.in_progress), "backend down")
    cancelled = manager.cancel(reach(S.pending), "caller hung up")
    assert failed.failure is FailureReason.error
    assert cancelled.failure is FailureReason.cancelled
    assert cancelled.history[-1].reason == "caller hung up"
    assert len(TRANSITIONS) == 7
