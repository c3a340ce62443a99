"""Handoff data with seed 000 parity: status, request, response and the audited record.

Pure data: no state machine and no storage here. Records are frozen; a move makes a copy.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class HandoffStatus(str, enum.Enum):
    pending = "pending"
    accepted = "accepted"
    in_progress = "in_progress"
    completed = "completed"
    rejected = "rejected"
    failed = "failed"


class HandoffRequest(BaseModel):
    """A request to transfer a task from one agent to another (seed 000)."""

    model_config = ConfigDict(frozen=True)

    from_agent: str
    to_agent: str
    task_description: str
    context: dict[str, Any] = Field(default_factory=dict)
    priority: int = Field(default=5, ge=1, le=10)
    deadline: datetime | None = None


class HandoffResponse(BaseModel):
    """The receiving agent's answer, attached by accept / reject / fail (seed 000)."""

    model_config = ConfigDict(frozen=True)

    accepted: bool
    reason: str = ""
    estimated_completion: datetime | None = None
