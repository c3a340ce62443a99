"""What a caller may pass to `Engine.handoff`: types, JSON data only, size and depth caps.

`clean_input` returns a copy that is always safe to route and store (cut and sanitized where
the caller's was not) plus the first problem found, as an `InputRefusal`: it never raises for
bad data. `check_move` holds a lifecycle move's arguments to the same caps, raising. Neither
routes nor records anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from engine.config.models import InputLimits
from engine.errors import RecordNotFound, UsageError
from engine.records.limits import SURROGATE, has_surrogate
from engine.records.models import as_utc
from engine.runtime.json_data import Note, Walk, short

INVALID_INPUT = "invalid_input"
"""Refusal reason: caller data of the wrong type, not JSON data, or over a cap."""
UNKNOWN_SENDER = "unknown_sender"
"""Refusal reason: the sender is not an agent of the serving config (e.g. a reload removed it)."""
NAME_MAX_CHARS = 256
"""Longest sender, tool, target or actor name accepted."""



@dataclass(frozen=True, slots=True)
class InputRefusal:
    """Caller input the engine refused before routing: which argument (`field`), and where in
    it and what is wrong (`detail`, e.g. `context.a: Opaque is not JSON data`)."""

    field: str
    detail: str
    reason: str = INVALID_INPUT

    @property
    def response_reason(self) -> str:
        """The rejected record's response reason, e.g. `invalid_input: context.a: ...`."""
        return f"{self.reason}: {self.detail}"

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "field": self.field, "detail": self.detail}


class HandoffInput(NamedTuple):
    """The caller's arguments to `Engine.handoff`, once cleaned (JSON data, within caps)."""

    sender: str
    text: str
    tool: str | None
    target: str | None
    context: dict[str, Any]
    priority: int
    deadline: datetime | None
    tool_args: dict[str, Any] | None
    tool_result: dict[str, Any] | None
    actor: str | None


def _problems() -> tuple[list[InputRefusal], Note]:
    """A list of problems and the `Note` that adds to it."""
    problems: list[InputRefusal] = []

    def note(where: str, detail: str) -> None:
        field = where.split(".", 1)[0].split("[", 1)[0]
        problems.append(InputRefusal(field, f"{where}: {detail}"))

    return problems, note


def clean_input(limits: InputLimits, **raw: Any) -> tuple[HandoffInput, InputRefusal | None]:
    """Check every argument of `HandoffInput` in `raw`; returns the cleaned input and the first
    problem (None when the input was fine, and then the cleaned copy equals it)."""
    problems, note = _problems()
    get = raw.get
    cleaned = HandoffInput(
        sender=_name("sender", get("sender"), note) or "",
        text=_text(get("text"), limits.max_text_chars, note),
        tool=_name("tool", get("tool"), note),
        target=_name("target", get("target"), note),
        context=_data("context", get("context"), limits, note) or {},
        priority=_priority(get("priority"), note),
        deadline=_deadline(get("deadline"), note),
        tool_args=_data("tool_args", get("tool_args"), limits, note),
        tool_result=_data("tool_result", get("tool_result"), limits, note),
        actor=_name("actor", get("actor"), note),
    )
    return cleaned, (problems[0] if problems else None)


def check_move(limits: InputLimits, record_id: Any, move: str, *, reason: Any, result: Any,
               actor: Any) -> None:
    """Raise `UsageError` when a lifecycle move's arguments break the caps a handoff's keep
    (`reason` text, `result` JSON data, and a mapping for `complete`, `actor` a name), and
    `RecordNotFound` for an id no store can hold: data a store could not keep or read back
    never reaches it."""
    if not isinstance(record_id, str):
        raise UsageError(f"cannot {move}: a record id is a string, not "
                         f"{type(record_id).__name__}")
    if has_surrogate(record_id):  # no stored id is text that is not valid Unicode
        raise RecordNotFound(record_id)
    if move == "complete" and not isinstance(result, Mapping):
        raise UsageError(f"cannot complete {record_id}: the result is a mapping, not "
                         f"{type(result).__name__}")
    refusal = _move_refusal(limits, reason=reason, result=result, actor=actor)
    if refusal is not None:
        raise UsageError(f"cannot {move} {record_id}: {refusal.detail}")


def _move_refusal(limits: InputLimits, *, reason: Any, result: Any, actor: Any
                  ) -> InputRefusal | None:
    problems, note = _problems()
    if not isinstance(reason, str):
        note("reason", f"expected a string, got {type(reason).__name__}")
    else:
        _string(str.__str__(reason), "reason", limits.max_text_chars, note)
    _data("result", result, limits, note)
    _name("actor", actor, note)
    return problems[0] if problems else None


def _text(value: Any, limit: int, note: Note) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        note("text", f"expected a string, got {type(value).__name__}")
        return ""
    return _string(str.__str__(value), "text", limit, note)


def _string(value: str, where: str, limit: int, note: Note) -> str:
    """`value` cut at `limit` characters and with lone surrogates replaced by U+FFFD."""
    if len(value) > limit:
        note(where, f"longer than {limit} characters")
        value = f"{value[:limit]}... [cut: {len(value)} characters]"
    if has_surrogate(value):
        note(where, "holds a lone surrogate (not valid Unicode text)")
        value = SURROGATE.sub("\ufffd", value)
    return value


def _name(field: str, value: Any, note: Note) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        note(field, f"expected a string, got {type(value).__name__}")
        return short(value)
    return _string(str.__str__(value), field, NAME_MAX_CHARS, note)


def _priority(value: Any, note: Note) -> int:
    if value is None:
        return 5
    if type(value) is not int or not 1 <= value <= 10:
        note("priority", f"expected an integer from 1 to 10, got {short(value)}")
        return 5
    return value


def _deadline(value: Any, note: Note) -> datetime | None:
    """The deadline in UTC (the lifecycle's time rule), or None when there is none to keep."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        note("deadline", f"expected a datetime, got {type(value).__name__}")
        return None
    try:
        return as_utc(value)
    except ValueError as error:  # OUT_OF_RANGE: no such time in UTC
        note("deadline", str(error))
    except Exception as error:  # a hostile tzinfo whose methods raise
        note("deadline", f"could not be read ({type(error).__name__})")
    return None


def _data(field: str, value: Any, limits: InputLimits, note: Note) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        note(field, f"expected a mapping, got {type(value).__name__}")
        return {}
    try:
        return Walk(limits, note).mapping(value, (field,), 1)
    except Exception as error:  # a hostile Mapping whose methods raise
        note(field, f"could not be read ({type(error).__name__})")
        return {}
