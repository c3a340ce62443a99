"""Record models: seed 000 fields and validation, the UTC time rule, JSON round trips."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from engine.lifecycle import (
    HandoffManager,
    HandoffRecord,
    HandoffRequest,
    HandoffResponse,
    HandoffStatus,
    Move,
)

UTC = timezone.utc


def test_status_is_a_str_enum_like_the_seed() -> None:
    assert HandoffStatus.pending == "pending"
    assert isinstance(HandoffStatus.in_progress, str)
    assert [s.value for s in HandoffStatus] == [
        "pending", "accepted", "in_progress", "completed", "rejected", "failed"
    ]


@pytest.mark.parametrize("priority", [0, 11, -3])
def test_priority_outside_1_to_10_is_rejected(priority: int) -> None:
    with pytest.raises(ValidationError, match="priority"):
        HandoffRequest(from_agent="a", to_agent="b", task_description="t", priority=priority)


def test_time_rule_naive_is_utc_and_aware_is_converted() -> None:
    naive = datetime(2026, 3, 31, 23, 59)
    paris = datetime(2026, 4, 1, 1, 59, tzinfo=timezone(timedelta(hours=2)))
    a = HandoffRequest(from_agent="a", to_agent="b", task_description="t", deadline=naive)
    b = HandoffRequest(from_agent="a", to_agent="b", task_description="t", deadline=paris)
    assert a.deadline == b.deadline == datetime(2026, 3, 31, 23, 59, tzinfo=UTC)
    assert b.deadline is not None and b.deadline.utcoffset() == timedelta(0)
    response = HandoffResponse(accepted=True, estimated_completion=naive)
    assert response.estimated_completion == naive.replace(tzinfo=UTC)
    parsed = HandoffRequest.model_validate_json(
        '{"from_agent": "a", "to_agent": "b", "task_description": "t",'
        ' "deadline": "2026-03-31T23:59:00"}'
    )
    assert parsed.deadline == naive.replace(tzinfo=UTC)


def test_a_naive_clock_is_read_as_utc() -> None:
    manager = HandoffManager(clock=lambda: datetime(2026, 1, 1, 12, 0))
    record = manager.create_handoff(
        HandoffRequest(from_agent="a", to_agent="b", task_description="t",
                       deadline=datetime(2026, 1, 1, 12, 0, 5, tzinfo=UTC))
    )
    assert record.created_at == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert manager.expire_overdue() == []  # naive and aware times compare without error


def test_move_serializes_with_from_and_to() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    move = Move(HandoffStatus.pending, HandoffStatus.accepted, "accept", at, "ok", "bot")
    record = HandoffRecord(
        record_id="h-1",
        request=HandoffRequest(from_agent="a", to_agent="b", task_description="t"),
        history=(move,),
    )
    dumped = record.model_dump(mode="json")
    assert dumped["history"] == [{
        "from": "pending", "to": "accepted", "trigger": "accept",
        "at": "2026-01-01T00:00:00Z", "reason": "ok", "actor": "bot",
    }]
    assert HandoffRecord.model_validate(dumped) == record
    with pytest.raises(ValidationError, match="version"):
        HandoffRecord.model_validate({**dumped, "version": 0})


@pytest.mark.parametrize(
    "moment",
    [datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=14))),
     datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-14)))],
)
def test_a_time_outside_the_utc_range_is_a_validation_error_naming_the_field(
    moment: datetime,
) -> None:
    with pytest.raises(ValidationError) as caught:
        HandoffRequest(from_agent="a", to_agent="b", task_description="t", deadline=moment)
    (error,) = caught.value.errors()
    assert error["loc"] == ("deadline",)
    assert "outside the range of UTC times (years 1 to 9999)" in error["msg"]
    text = moment.isoformat()
    with pytest.raises(ValidationError, match="created_at"):
        HandoffRecord.model_validate_json(
            '{"record_id": "r", "request": {"from_agent": "a", "to_agent": "b",'
            f' "task_description": "t"}}, "created_at": "{text}"}}'
        )
