"""What a caller may pass to `Engine.handoff`: types, JSON data only, size and depth caps.

`clean_input` returns a copy that is always safe to route and store (cut and sanitized where
the caller's was not) plus the first problem found, as an `InputRefusal`. It never raises
for bad data and never routes or records anything.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from engine.config.models import InputLimits

INVALID_INPUT = "invalid_input"
"""Refusal reason: caller data of the wrong type, not JSON data, or over a cap."""
UNKNOWN_SENDER = "unknown_sender"
"""Refusal reason: the sender is not an agent of the serving config (e.g. a reload removed it)."""
NAME_MAX_CHARS = 256
"""Longest sender, tool, target or actor name accepted."""

Note = Callable[[str, str], None]
"""Records a problem: (path of the field, what is wrong)."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_BOUND = 2**63


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


def clean_input(limits: InputLimits, **raw: Any) -> tuple[HandoffInput, InputRefusal | None]:
    """Check every argument of `HandoffInput` in `raw`; returns the cleaned input and the first
    problem (None when the input was fine, and then the cleaned copy equals it)."""
    problems: list[InputRefusal] = []

    def note(field: str, detail: str) -> None:
        problems.append(InputRefusal(field.split(".")[0].split("[")[0], f"{field}: {detail}"))

    text = _text(raw.get("text"), limits.max_text_chars, note)
    names = {name: _name(name, raw.get(name), note) for name in ("tool", "target", "actor")}
    sender = _name("sender", raw.get("sender"), note) or ""
    data = {name: _data(name, raw.get(name), limits, note)
            for name in ("context", "tool_args", "tool_result")}
    cleaned = HandoffInput(
        sender=sender, text=text, tool=names["tool"], target=names["target"],
        context=data["context"] or {}, priority=_priority(raw.get("priority"), note),
        deadline=_deadline(raw.get("deadline"), note), tool_args=data["tool_args"],
        tool_result=data["tool_result"], actor=names["actor"],
    )
    return cleaned, (problems[0] if problems else None)


def _text(value: Any, limit: int, note: Note) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        note("text", f"expected a string, got {type(value).__name__}")
        return ""
    return _string(value, "text", limit, note)


def _string(value: str, field: str, limit: int, note: Note) -> str:
    """`value` cut at `limit` characters and with lone surrogates replaced by U+FFFD."""
    if len(value) > limit:
        note(field, f"longer than {limit} characters")
        value = f"{value[:limit]}... [cut: {len(value)} characters]"
    if not value.isascii() and _SURROGATE.search(value):
        note(field, "holds a lone surrogate (not valid Unicode text)")
        value = _SURROGATE.sub("\ufffd", value)
    return value


def _name(field: str, value: Any, note: Note) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        note(field, f"expected a string, got {type(value).__name__}")
        return repr(value)[:NAME_MAX_CHARS]
    return _string(value, field, NAME_MAX_CHARS, note)


def _priority(value: Any, note: Note) -> int:
    if value is None:
        return 5
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10:
        note("priority", f"expected an integer from 1 to 10, got {_short(value)}")
        return 5
    return value


def _deadline(value: Any, note: Note) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    note("deadline", f"expected a datetime, got {type(value).__name__}")
    return None


def _data(field: str, value: Any, limits: InputLimits, note: Note) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        note(field, f"expected a mapping, got {type(value).__name__}")
        return {}
    walk = _Walk(limits, note)
    try:
        cleaned = walk.mapping(value, field, 1)
    except Exception as error:  # a hostile Mapping whose methods raise
        note(field, f"could not be read ({type(error).__name__})")
        return {}
    return cleaned if isinstance(cleaned, dict) else {}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Walk:
    """One walk over caller data: a JSON-safe copy within the depth and size caps."""

    def __init__(self, limits: InputLimits, note: Note) -> None:
        self.limits = limits
        self.budget = limits.max_data_chars
        self.note = note

    def value(self, value: Any, path: str, depth: int) -> Any:
        if value is None or isinstance(value, bool):
            self.budget -= 1
            return value
        if isinstance(value, str):
            return self.string(value, path)
        if isinstance(value, int):
            return self.integer(value, path)
        if isinstance(value, float):
            self.budget -= 1
            if math.isfinite(value):
                return value
            self.note(path, f"{value} is not a finite number")
            return None
        if isinstance(value, (Mapping, list, tuple)):
            return self.container(value, path, depth + 1)
        self.note(path, f"{type(value).__name__} is not JSON data")
        return f"[removed: {type(value).__name__}]"

    def integer(self, value: int, path: str) -> int | str:
        self.budget -= 1
        if -_INT_BOUND <= value < _INT_BOUND:
            return value
        self.note(path, "integer outside 64 bits")
        return "[removed: integer outside 64 bits]"

    def string(self, value: str, path: str) -> str:
        limit = max(self.budget, 0)
        if len(value) > limit:
            self.note(path, f"larger than {self.limits.max_data_chars} characters in all")
            value = f"{value[:limit]}... [cut: {len(value)} characters]"
            self.budget = 0
        else:
            self.budget -= len(value)
        return _string(value, path, len(value), self.note)

    def container(self, value: Any, path: str, depth: int) -> Any:
        self.budget -= 1
        if depth > self.limits.max_depth:
            self.note(path, f"nested deeper than {self.limits.max_depth} levels")
            return f"[cut: nested deeper than {self.limits.max_depth} levels]"
        if isinstance(value, Mapping):
            return self.mapping(value, path, depth)
        out: list[Any] = []
        for index, item in enumerate(value):
            if self.budget <= 0:
                self.note(path, f"larger than {self.limits.max_data_chars} characters in all")
                out.append(f"[cut: {len(value) - index} more items]")
                break
            out.append(self.value(item, f"{path}[{index}]", depth))
        return out

    def mapping(self, value: Mapping[Any, Any], path: str, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if self.budget <= 0:
                self.note(path, f"larger than {self.limits.max_data_chars} characters in all")
                out["[cut]"] = f"{len(value) - index} more entries"
                break
            if not isinstance(key, str):
                self.note(path, f"key {_short(key)} is not a string")
                key = repr(key)
            name = self.string(key, path)
            out[name] = self.value(item, f"{path}.{name[:40]}", depth)
        return out
