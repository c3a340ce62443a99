"""Handoff data with seed 000 parity: status, request, response and the audited record.

Pure data: no state machine and no storage here. Records are frozen; a move makes a copy.
Time rule: every datetime is stored timezone-aware in UTC; a naive one is read as UTC.
"""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.dataclasses import dataclass


def utc_now() -> datetime:
    """The default clock: the current time, timezone-aware, in UTC."""
    return datetime.now(timezone.utc)


OUT_OF_RANGE = "outside the range of UTC times (years 1 to 9999)"
"""Why a time is refused: its UTC form does not exist (every store holds exactly this range)."""


def as_utc(value: datetime) -> datetime:
    """The time rule of the whole lifecycle. Seed 000 documents its times as UTC, so a naive
    datetime is taken to already be UTC (never local time); an aware one is converted.
    ValueError (`OUT_OF_RANGE`) when the UTC form falls before year 1 or after 9999."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=timezone.utc)
    if value.utcoffset():
        try:
            return value.astimezone(timezone.utc)
        except OverflowError:
            raise ValueError(OUT_OF_RANGE) from None
    return value


def parse_utc(text: str) -> datetime:
    """An ISO 8601 time read by the lifecycle's time rule (`as_utc`: naive means UTC), with a
    trailing `Z` read on Python 3.10 too. ValueError saying what is wrong with it."""
    value = text.strip()
    if value.endswith(("Z", "z")):  # fromisoformat on Python 3.10 does not read "Z"
        value = value[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("expected an ISO 8601 time such as 2026-03-31T23:59:00Z") from None
    return as_utc(moment)


def _utc_or_none(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


class HandoffStatus(str, enum.Enum):
    pending = "pending"
    accepted = "accepted"
    in_progress = "in_progress"
    completed = "completed"
    rejected = "rejected"
    failed = "failed"


class FailureReason(str, enum.Enum):
    """Why a handoff ended in `failed`: the typed half of the record's failure."""

    error = "error"  # fail(): the receiving agent could not finish the task
    timeout = "timeout"  # expired: still pending after `pending_timeout_s`
    deadline = "deadline"  # expired: still live after the request's deadline
    cancelled = "cancelled"  # cancel(): e.g. the caller hung up or barged in


class HandoffRequest(BaseModel):
    """A request to transfer a task from one agent to another (seed 000).

    `deadline` follows the time rule: naive means UTC; it is stored aware in UTC.
    """

    model_config = ConfigDict(frozen=True)

    from_agent: str
    to_agent: str
    task_description: str
    context: dict[str, Any] = Field(default_factory=dict)
    priority: int = Field(default=5, ge=1, le=10)
    deadline: datetime | None = None

    _utc = field_validator("deadline")(_utc_or_none)


class HandoffResponse(BaseModel):
    """The receiving agent's answer, attached by accept / reject / fail (seed 000)."""

    model_config = ConfigDict(frozen=True)

    accepted: bool
    reason: str = ""
    estimated_completion: datetime | None = None

    _utc = field_validator("estimated_completion")(_utc_or_none)


_ALIASED = ConfigDict(serialize_by_alias=True, validate_by_name=True, validate_by_alias=True)


@dataclass(frozen=True, slots=True, config=_ALIASED)
class Move:
    """One entry of a record's history; serialized as `{from, to, trigger, at, reason, actor}`.

    A slotted dataclass rather than a model: a record carries several, and each costs ~90 bytes.
    """

    from_: Annotated[HandoffStatus | None, Field(alias="from")]
    to: HandoffStatus
    trigger: str
    at: datetime
    reason: str = ""
    actor: str = ""

    _utc = field_validator("at")(as_utc)


class HandoffRecord(BaseModel):
    """The audited life of one handoff (seed 000 fields plus history, versions and failure).

    Frozen: `HandoffManager` replaces a record by a moved copy. `version` counts writes
    (optimistic concurrency); `config_version` names the config snapshot that routed it;
    `failure` types why a `failed` record failed. Serialize with `model_dump(mode="json")`.
    """

    model_config = ConfigDict(frozen=True)

    record_id: str
    request: HandoffRequest
    response: HandoffResponse | None = None
    status: HandoffStatus = HandoffStatus.pending
    result: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    history: tuple[Move, ...] = ()
    config_version: str | None = None
    version: int = Field(default=1, ge=1)
    failure: FailureReason | None = None

    _utc = field_validator("created_at", "updated_at")(as_utc)

    @property
    def is_live(self) -> bool:
        """True while the handoff can still move (pending, accepted or in progress)."""
        return self.status in LIVE_STATES


LIVE_STATES = frozenset(
    {HandoffStatus.pending, HandoffStatus.accepted, HandoffStatus.in_progress}
)


_RECORD_FIELDS = frozenset(HandoffRecord.model_fields)
_set = object.__setattr__


def build_record(fields: dict[str, Any]) -> HandoffRecord:
    """A record from already-typed values, without validation (the manager's fast path).

    Only for trusted callers that pass every field with its declared type; untrusted data goes
    through `HandoffRecord.model_validate`. The fields-set marker is shared: records are frozen.
    """
    record = HandoffRecord.__new__(HandoffRecord)
    _set(record, "__dict__", fields)
    _set(record, "__pydantic_fields_set__", _RECORD_FIELDS)
    _set(record, "__pydantic_extra__", None)
    _set(record, "__pydantic_private__", None)
    return record


def new_move(
    source: HandoffStatus | None,
    dest: HandoffStatus,
    trigger: str,
    at: datetime,
    reason: str,
    actor: str,
) -> Move:
    """A history entry from already-typed values, without validation (see `build_record`)."""
    move = Move.__new__(Move)
    _set(move, "from_", source)
    _set(move, "to", dest)
    _set(move, "trigger", trigger)
    _set(move, "at", at)
    _set(move, "reason", reason)
    _set(move, "actor", actor)
    return move


def evolve(record: HandoffRecord, changes: dict[str, Any]) -> HandoffRecord:
    """A copy of `record` with `changes` applied, unvalidated (see `build_record`)."""
    fields = record.__dict__.copy()
    fields.update(changes)
    return build_record(fields)
