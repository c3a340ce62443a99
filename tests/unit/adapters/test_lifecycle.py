"""A conversation's records follow its events: accepted on the target's first turn, completed
when it hands on or the call ends, failed with a typed reason when a run errors or is cancelled.
A real AsyncEngine on the banking set with a SQLite file; no framework needed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine.adapters.lifecycle import MANUAL, SESSION_KEY, Conversation, LifecyclePolicy
from engine.records.models import FailureReason, HandoffStatus
from engine.runtime.async_engine import AsyncEngine
from tests.unit.adapters.conftest import BANKING

Scenario = Callable[[AsyncEngine, Conversation], Awaitable[None]]


def run(tmp_path: Path, scenario: Scenario, policy: LifecyclePolicy | None = None) -> Any:
    async def main() -> Any:
        tmp_path.mkdir(exist_ok=True)
        engine = await AsyncEngine.open(BANKING, store=tmp_path / "records.sqlite")
        async with engine:
            call = Conversation(engine, engine.session(), policy)
            await scenario(engine, call)
            return call, [await engine.get(record_id) for record_id in call.records]

    return asyncio.run(main())


async def to_fraud(engine: AsyncEngine, call: Conversation) -> None:
    outcome = await engine.handoff("My card was stolen last night", session=call.session,
                                   context=call.context({"card_last4": "4421"}))
    assert outcome.target == "fraud_agent"
    await call.handed_off(outcome)


def statuses(records: list[Any]) -> list[str]:
    return [record.status.value for record in records]


def test_a_routed_handoff_is_accepted_on_the_first_turn_and_completed_when_the_call_ends(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        assert call.open is not None
        seen.append(call.open.status.value)
        await call.turn("concierge")  # not the target: nothing moves
        seen.append(call.open.status.value)
        await call.turn("fraud_agent")
        seen.append(call.open.status.value)
        await call.run_ended("fraud_agent")  # a run ending is not the end of the task
        seen.append(call.open.status.value)
        await call.end()

    call, records = run(tmp_path, scenario)
    assert records[0].request.context[SESSION_KEY] == call.session.session_id
    assert seen == ["pending", "pending", "in_progress", "in_progress"]
    assert statuses(records) == ["completed"]
    assert [move.to.value for move in records[0].history] == [
        "pending", "accepted", "in_progress", "completed"]
    assert records[0].result == {"ended": "call"}


def test_handing_on_completes_the_holder_and_opens_the_next(tmp_path: Path) -> None:
    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        await call.turn("fraud_agent")
        back = await engine.handoff("Thanks, that is all for the card", session=call.session,
                                    tool="handoff_concierge", context=call.context())
        assert back.target == "concierge"
        await call.handed_off(back)
        await call.turn("concierge")

    call, records = run(tmp_path, scenario)
    assert statuses(records) == ["completed", "in_progress"]
    assert records[0].result == {"handed_on_to": "concierge"}
    assert records[1].request.context[SESSION_KEY] == call.session.session_id


def test_a_refusal_moves_nothing(tmp_path: Path) -> None:
    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        refused = await engine.handoff("Let me talk to someone", session=call.session,
                                       tool="no_such_tool", context=call.context())
        assert refused.target is None and refused.record.status is HandoffStatus.rejected
        await call.handed_off(refused)
        await call.end()

    call, records = run(tmp_path, scenario)
    assert records == [] and call.open is None


@pytest.mark.parametrize(("error", "reason", "words"), [
    (RuntimeError("model timed out"), FailureReason.error,
     "The run failed: RuntimeError: model timed out"),
    (asyncio.CancelledError(), FailureReason.cancelled, "The run was cancelled."),
], ids=["error", "cancelled"])
def test_a_failed_run_fails_the_holder_with_a_typed_reason(
    tmp_path: Path, error: BaseException, reason: FailureReason, words: str
) -> None:
    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        await call.turn("fraud_agent")
        await call.run_failed(error)
        await call.end()  # nothing left to complete

    _, records = run(tmp_path, scenario)
    assert statuses(records) == ["failed"]
    assert records[0].failure is reason
    assert records[0].response is not None and records[0].response.reason == words


def test_policies_accept_on_handoff_complete_on_run_end_or_move_nothing(tmp_path: Path) -> None:
    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        assert call.open is not None and call.open.status is HandoffStatus.in_progress
        await call.run_ended("concierge")  # not the holder
        assert call.open.status is HandoffStatus.in_progress
        await call.run_ended("fraud_agent")

    _, records = run(tmp_path, scenario,
                     LifecyclePolicy(accept_on="handoff", complete_on="run_end"))
    assert statuses(records) == ["completed"] and records[0].result == {"ended": "run"}

    async def manual(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        await call.turn("fraud_agent")
        await call.run_failed(RuntimeError("boom"))
        await call.end()

    _, records = run(tmp_path / "manual", manual, MANUAL)
    assert statuses(records) == ["pending"]


def test_a_move_that_lost_a_race_keeps_the_stored_record(tmp_path: Path) -> None:
    async def scenario(engine: AsyncEngine, call: Conversation) -> None:
        await to_fraud(engine, call)
        assert call.open is not None
        await engine.reject(call.open.record_id, "Another replica said no.")
        await call.turn("fraud_agent")  # accept is now illegal: the stored record wins
        assert call.open.status is HandoffStatus.rejected
        await call.end()

    _, records = run(tmp_path, scenario)
    assert statuses(records) == ["rejected"]
