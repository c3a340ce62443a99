"""Seed 000 (aumai-handoff) as its document publishes it: the reference the benchmarks compare
against, written from the document alone, plainly, with no optimization of ours.

`HandoffRouter` extracts words longer than 4 characters, asks the registry for the agents
holding ALL of them (sorted by match count), and falls back to any agent but the sender.
`HandoffManager` keeps mutable pydantic records in a dict, with uuid4 ids. Benchmark use only.
"""

from __future__ import annotations

import string
import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field


class HandoffStatus(str, Enum):
    pending = "pending"
    accepted = "accepted"
    in_progress = "in_progress"
    completed = "completed"
    rejected = "rejected"
    failed = "failed"


def _now() -> datetime:
    return datetime.now(tz=timezone.utc)


class HandoffRequest(BaseModel):
    from_agent: str
    to_agent: str
    task_description: str
    context: dict[str, Any] = {}
    priority: int = Field(default=5, ge=1, le=10)
    deadline: datetime | None = None


class HandoffResponse(BaseModel):
    accepted: bool
    reason: str = ""
    estimated_completion: datetime | None = None


class HandoffRecord(BaseModel):
    model_config = {"frozen": False}

    record_id: str
    request: HandoffRequest
    response: HandoffResponse | None = None
    status: HandoffStatus = HandoffStatus.pending
    result: dict[str, Any] = {}
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)


class AgentCapabilityRegistry(BaseModel):
    agents: dict[str, list[str]] = {}

    def register(self, agent_id: str, capabilities: list[str]) -> None:
        self.agents[agent_id] = capabilities

    def unregister(self, agent_id: str) -> None:
        self.agents.pop(agent_id, None)

    def find_capable(self, required_capabilities: list[str]) -> list[str]:
        """Agents whose capability set is a superset of the required set, sorted by the
        number of matching capabilities, descending."""
        required = set(required_capabilities)
        matches = []
        for agent_id, capabilities in self.agents.items():
            held = set(capabilities)
            if required.issubset(held):
                matches.append((agent_id, len(required & held)))
        matches.sort(key=lambda match: match[1], reverse=True)
        return [agent_id for agent_id, _ in matches]


def _extract_keywords(text: str) -> list[str]:
    """Lowercased words longer than 4 characters, leading/trailing punctuation stripped."""
    words = [word.strip(string.punctuation) for word in text.lower().split()]
    return [word for word in words if len(word) > 4]


class HandoffRouter:
    def __init__(self, registry: AgentCapabilityRegistry) -> None:
        self.registry = registry

    def route(
        self, request: HandoffRequest, preferred_capabilities: list[str] | None = None
    ) -> str | None:
        keywords = (
            preferred_capabilities
            if preferred_capabilities is not None
            else _extract_keywords(request.task_description)
        )
        candidates = self.registry.find_capable(keywords)
        if not candidates:
            candidates = [a for a in self.registry.agents if a != request.from_agent]
        return candidates[0] if candidates else None


class HandoffManager:
    def __init__(self) -> None:
        self._records: dict[str, HandoffRecord] = {}

    def create_handoff(self, request: HandoffRequest) -> HandoffRecord:
        record = HandoffRecord(record_id=str(uuid.uuid4()), request=request)
        self._records[record.record_id] = record
        return record

    def _in(self, record_id: str, allowed: tuple[HandoffStatus, ...]) -> HandoffRecord:
        record = self._records[record_id]
        if record.status not in allowed:
            raise ValueError(f"handoff {record_id} is {record.status.value}")
        return record

    def _move(self, record: HandoffRecord, status: HandoffStatus) -> HandoffRecord:
        record.status = status
        record.updated_at = _now()
        return record

    def accept(self, record_id: str) -> HandoffRecord:
        record = self._in(record_id, (HandoffStatus.pending,))
        record.response = HandoffResponse(accepted=True, reason="Accepted by receiving agent.")
        return self._move(record, HandoffStatus.accepted)

    def start(self, record_id: str) -> HandoffRecord:
        record = self._in(record_id, (HandoffStatus.accepted,))
        return self._move(record, HandoffStatus.in_progress)

    def complete(self, record_id: str, result: dict[str, Any]) -> HandoffRecord:
        record = self._in(record_id, (HandoffStatus.accepted, HandoffStatus.in_progress))
        record.result = result
        return self._move(record, HandoffStatus.completed)

    def reject(self, record_id: str, reason: str) -> HandoffRecord:
        record = self._in(record_id, (HandoffStatus.pending,))
        record.response = HandoffResponse(accepted=False, reason=reason)
        return self._move(record, HandoffStatus.rejected)

    def fail(self, record_id: str, reason: str) -> HandoffRecord:
        record = self._in(record_id, (HandoffStatus.accepted, HandoffStatus.in_progress))
        record.response = HandoffResponse(accepted=False, reason=reason)
        return self._move(record, HandoffStatus.failed)

    def get(self, record_id: str) -> HandoffRecord:
        return self._records[record_id]

    def list_records(self, status: HandoffStatus | None = None) -> list[HandoffRecord]:
        records = [r for r in self._records.values() if status is None or r.status == status]
        return sorted(records, key=lambda record: record.created_at)
