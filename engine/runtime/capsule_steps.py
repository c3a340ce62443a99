"""Capsule trace steps read from one handoff record's history (mapping: `capsule.export_run`).

Pure: reads a record, returns steps and their taxonomy errors; never touches a store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.errors import RoutingError
from engine.lifecycle import HandoffRecord, HandoffStatus, Move
from engine.records.models import as_utc
from engine.specs.models import AgentError
from engine.specs.taxonomy import CODE_BY_FAILURE, agent_error, to_agent_error

ENDS = frozenset({HandoffStatus.rejected, HandoffStatus.completed, HandoffStatus.failed})
_REASON_CODE = re.compile(r"^([a-z][a-z_]*):\s*(.*)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Step:
    """One trace step before it gets its index; `error` is its taxonomy instance, if any."""

    started_at: datetime
    ended_at: datetime
    step_type: str
    error_code: int | None = None
    record_id: str | None = None
    error: AgentError | None = None
    agent: str | None = None

    def to_dict(self, index: int) -> dict[str, Any]:
        ended = max(self.ended_at, self.started_at)
        data: dict[str, Any] = {
            "step_index": index,
            "step_type": self.step_type,
            "started_at": timestamp(self.started_at),
            "ended_at": timestamp(ended),
            "duration_ms": round((ended - self.started_at).total_seconds() * 1000),
        }
        if self.record_id is not None:
            data["tool_call_id"] = self.record_id
        if self.error_code is not None:
            data["error_code"] = self.error_code
        if self.error is not None:
            data["error_message"] = self.error.message
        return data


def record_steps(record: HandoffRecord, human: bool) -> list[Step]:
    """The steps of one handoff: spawn (+ result once it ended), or one `error` step when it
    was refused or expired before anyone picked it up."""
    created, rid, target = record.created_at, record.record_id, record.request.to_agent
    accepted = _first(record.history, {HandoffStatus.accepted})
    end = _first(record.history, ENDS)
    if accepted is None and end is not None:
        error = _end_error(record, end)
        return [Step(created, end.at, "error", error.code, rid, error, target)]
    kind = "human_handoff" if human else "sub_agent_spawn"
    picked = accepted.at if accepted is not None else created
    spawn = Step(created, picked, kind, None, rid, None, target)
    if end is None:
        return [spawn]
    failed = _end_error(record, end) if end.to is HandoffStatus.failed else None
    code = None if failed is None else failed.code
    return [spawn, Step(picked, end.at, "sub_agent_result", code, rid, failed, target)]


def _first(history: tuple[Move, ...], states: set[HandoffStatus] | frozenset[HandoffStatus]
           ) -> Move | None:
    return next((move for move in history if move.to in states), None)


def _end_error(record: HandoffRecord, end: Move) -> AgentError:
    """The taxonomy instance of a refused or failed handoff, at the time it ended: a refusal
    is blamed on the sender (its request was refused), a failure on the target."""
    rid, target = record.record_id, record.request.to_agent
    context = {"record_id": rid, "from_agent": record.request.from_agent, "to_agent": target}
    if end.to is HandoffStatus.rejected:
        said = record.response.reason if record.response is not None else end.reason
        match = _REASON_CODE.match(said)
        reason, detail = (match.group(1), match.group(2)) if match else ("rejected", said)
        error = to_agent_error(RoutingError(reason, detail or said or "rejected"),
                               agent_id=record.request.from_agent, at=end.at)
        return error.model_copy(update={"context": {**error.context, **context,
                                                    "reason": reason}})
    failure = record.failure.value if record.failure is not None else "error"
    code, recoverable = CODE_BY_FAILURE.get(failure, CODE_BY_FAILURE["error"])
    message = f"handoff {rid} to {target!r} failed ({failure})"
    return agent_error(
        code, f"{message}: {end.reason}" if end.reason else message, recoverable=recoverable,
        agent_id=target, at=end.at, context={**context, "failure": failure},
    )


def timestamp(value: datetime) -> str:
    """RFC 3339 in UTC with microseconds and a `Z`, so times also sort as text."""
    return as_utc(value).isoformat(timespec="microseconds").replace("+00:00", "Z")
