"""The aumai-handoff API reference, example by example, run against `engine`.

Each test ports one example or statement of that reference as it is written there (only the
import line changes); where the engine deliberately differs the test says so and checks the
engine's behaviour instead.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest
from pydantic import ValidationError

from engine import (
    AgentCapabilityRegistry,
    HandoffManager,
    HandoffRecord,
    HandoffRequest,
    HandoffResponse,
    HandoffRouter,
    HandoffStatus,
)
from engine.routing import _extract_keywords


def test_handoff_status_example() -> None:
    status = HandoffStatus.pending
    assert status.value == "pending"
    assert isinstance(status, str)
    assert status == "pending"
    assert [s.value for s in HandoffStatus] == [
        "pending", "accepted", "in_progress", "completed", "rejected", "failed"]


def test_handoff_request_example() -> None:
    request = HandoffRequest(
        from_agent="coordinator",
        to_agent="analyst",
        task_description="Analyze Q3 churn data and produce a summary.",
        priority=9,
        deadline=datetime(2026, 3, 31, 23, 59, tzinfo=timezone.utc),
        context={
            "data_source": "s3://data/churn-q3.parquet",
            "output_format": "markdown",
        },
    )
    assert request.priority == 9 and request.context["output_format"] == "markdown"
    assert HandoffRequest(from_agent="a", to_agent="b", task_description="t").priority == 5
    assert HandoffRequest(from_agent="a", to_agent="b", task_description="t").context == {}


@pytest.mark.parametrize("priority", [0, 11])
def test_priority_outside_1_to_10_raises_validation_error(priority: int) -> None:
    with pytest.raises(ValidationError):
        HandoffRequest(from_agent="a", to_agent="b", task_description="t", priority=priority)


def test_handoff_response_fields() -> None:
    response = HandoffResponse(accepted=True)
    assert (response.reason, response.estimated_completion) == ("", None)


def _request() -> HandoffRequest:
    return HandoffRequest(from_agent="coordinator", to_agent="analyst",
                          task_description="Analyze churn")


def test_create_accept_start_complete() -> None:
    manager = HandoffManager()
    record = manager.create_handoff(_request())
    assert uuid.UUID(record.record_id).version == 4
    assert record.status is HandoffStatus.pending and record.response is None
    accepted = manager.accept(record.record_id)
    assert accepted.status == HandoffStatus.accepted
    assert accepted.response == HandoffResponse(accepted=True,
                                                 reason="Accepted by receiving agent.")
    assert manager.start(record.record_id).status == HandoffStatus.in_progress
    done = manager.complete(record.record_id, {"summary": "churn is down"})
    assert done.status == HandoffStatus.completed and done.result == {"summary": "churn is down"}
    assert done.updated_at >= done.created_at
    assert manager.get(record.record_id).status == HandoffStatus.completed


def test_reject_and_fail_set_the_response() -> None:
    manager = HandoffManager()
    rejected = manager.reject(manager.create_handoff(_request()).record_id, "too busy")
    assert rejected.status == HandoffStatus.rejected
    assert rejected.response == HandoffResponse(accepted=False, reason="too busy")
    record = manager.create_handoff(_request())
    manager.accept(record.record_id)
    failed = manager.fail(record.record_id, "data source missing")
    assert failed.status == HandoffStatus.failed
    assert failed.response is not None and failed.response.reason == "data source missing"


@pytest.mark.parametrize(
    ("moves", "call", "state"),
    [((), "start", "pending"), ((), "complete", "pending"), ((), "fail", "pending"),
     (("accept",), "accept", "accepted"), (("accept",), "reject", "accepted"),
     (("reject",), "accept", "rejected")],
)
def test_wrong_state_raises_value_error_with_the_seed_message(
    moves: tuple[str, ...], call: str, state: str
) -> None:
    manager = HandoffManager()
    record_id = manager.create_handoff(_request()).record_id
    for move in moves:
        getattr(manager, move)(record_id, *(("no",) if move == "reject" else ()))
    args = {"complete": ({},), "fail": ("x",), "reject": ("x",)}.get(call, ())
    with pytest.raises(ValueError, match=f"Cannot {call} handoff in state '{state}'"):
        getattr(manager, call)(record_id, *args)


@pytest.mark.parametrize("call", ["get", "accept", "start", "complete", "reject", "fail"])
def test_unknown_id_raises_key_error(call: str) -> None:
    args = {"complete": ({},), "fail": ("x",), "reject": ("x",)}.get(call, ())
    with pytest.raises(KeyError, match="No handoff record found with id 'missing'"):
        getattr(HandoffManager(), call)("missing", *args)


def test_list_records_filters_and_sorts_oldest_first() -> None:
    manager = HandoffManager()
    ids = [manager.create_handoff(_request()).record_id for _ in range(3)]
    manager.accept(ids[1])
    assert [r.record_id for r in manager.list_records()] == ids
    assert [r.record_id for r in manager.list_records(HandoffStatus.accepted)] == [ids[1]]
    assert [r.record_id for r in manager.list_records(status=HandoffStatus.pending)] == [
        ids[0], ids[2]]


def test_export_and_import_records() -> None:
    manager = HandoffManager()
    record = manager.create_handoff(_request())
    manager.accept(record.record_id)
    exported = manager.export()
    assert isinstance(exported[0]["created_at"], str)  # datetimes as ISO strings
    other = HandoffManager()
    other.create_handoff(_request())
    other.import_records(exported)  # does not clear existing records
    assert len(other.list_records()) == 2
    assert other.get(record.record_id).status == HandoffStatus.accepted
    with pytest.raises(ValidationError):
        other.import_records([{"record_id": "x"}])


def test_record_serializes_with_model_dump() -> None:
    record = HandoffManager().create_handoff(_request())
    assert isinstance(record, HandoffRecord)
    assert record.model_dump(mode="json")["status"] == "pending"
    assert '"status":"pending"' in record.model_dump_json()


def test_registry_example() -> None:
    registry = AgentCapabilityRegistry()
    registry.register("alice", ["analyze", "summarize", "translate"])
    registry.register("bob", ["execute", "report"])
    registry.register("carol", ["analyze", "visualize"])
    assert registry.find_capable(["analyze"]) == ["alice", "carol"]
    assert registry.find_capable(["analyze", "summarize"]) == ["alice"]
    assert registry.find_capable(["fly"]) == []
    registry.unregister("nobody")  # silently no-ops


def test_router_example() -> None:
    registry = AgentCapabilityRegistry()
    registry.register("analyst", ["analyze", "report"])
    registry.register("writer", ["write", "summarize"])
    router = HandoffRouter(registry)
    request = HandoffRequest(
        from_agent="coordinator",
        to_agent="",
        task_description="Please analyze and report on market trends.",
        priority=5,
    )
    assert router.route(request) == "analyst"
    assert router.route(request, preferred_capabilities=["summarize"]) == "writer"
    assert HandoffRouter(AgentCapabilityRegistry()).route(request) is None


def test_extract_keywords_example() -> None:
    keywords = _extract_keywords("Please analyze and report on market trends.")
    assert keywords == ["please", "analyze", "report", "market", "trends"]
