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
from engine.records.models import as_utc

INVALID_INPUT = "invalid_input"
"""Refusal reason: caller data of the wrong type, not JSON data, or over a cap."""
UNKNOWN_SENDER = "unknown_sender"
"""Refusal reason: the sender is not an agent of the serving config (e.g. a reload removed it)."""
NAME_MAX_CHARS = 256
"""Longest sender, tool, target or actor name accepted."""

Note = Callable[[str, str], None]
"""Records a problem: (where, e.g. `context.a[2]`, and what is wrong)."""
Path = tuple[str | int, ...]
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

    def note(where: str, detail: str) -> None:
        field = where.split(".", 1)[0].split("[", 1)[0]
        problems.append(InputRefusal(field, f"{where}: {detail}"))

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
    if not value.isascii() and _SURROGATE.search(value):
        note(where, "holds a lone surrogate (not valid Unicode text)")
        value = _SURROGATE.sub("\ufffd", value)
    return value


def _name(field: str, value: Any, note: Note) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        note(field, f"expected a string, got {type(value).__name__}")
        return repr(value)[:NAME_MAX_CHARS]
    return _string(str.__str__(value), field, NAME_MAX_CHARS, note)


def _priority(value: Any, note: Note) -> int:
    if value is None:
        return 5
    if type(value) is not int or not 1 <= value <= 10:
        note("priority", f"expected an integer from 1 to 10, got {_short(value)}")
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
        return _Walk(limits, note).mapping(value, (field,), 1)
    except Exception as error:  # a hostile Mapping whose methods raise
        note(field, f"could not be read ({type(error).__name__})")
        return {}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(path: Path) -> str:
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part[:40]}"
    return text


class _Walk:
    """One walk over caller data: a JSON-safe copy within the depth and size caps. Exact
    built-in types take the fast paths; subclasses are read through their base type."""

    def __init__(self, limits: InputLimits, note: Note) -> None:
        self.max_depth = limits.max_depth
        self.max_chars = limits.max_data_chars
        self.budget = limits.max_data_chars
        self.note = note

    def problem(self, path: Path, detail: str) -> None:
        self.note(_where(path), detail)

    def value(self, value: Any, path: Path, depth: int) -> Any:
        kind = type(value)
        if kind is str:
            return self.string(value, path)
        if kind is dict or kind is list or kind is tuple:
            return self.container(value, path, depth + 1)
        self.budget -= 1
        if value is None or kind is bool:
            return value
        if kind is int:
            if -_INT_BOUND <= value < _INT_BOUND:
                return value
            self.problem(path, "integer outside 64 bits")
            return "[removed: integer outside 64 bits]"
        if kind is float:
            if math.isfinite(value):
                return value
            self.problem(path, f"{value} is not a finite number")
            return None
        return self.subclass(value, path, depth)

    def subclass(self, value: Any, path: Path, depth: int) -> Any:
        """Instances of subclasses (str enums, OrderedDict, ...), or what is not JSON data."""
        self.budget += 1  # charged again by the path it takes
        if isinstance(value, str):
            return self.string(str.__str__(value), path)
        if isinstance(value, bool):
            return self.value(bool(value), path, depth)
        if isinstance(value, int):
            return self.value(int.__int__(value), path, depth)
        if isinstance(value, float):
            return self.value(float.__float__(value), path, depth)
        if isinstance(value, (Mapping, list, tuple)):
            return self.container(value, path, depth + 1)
        self.budget -= 1
        self.problem(path, f"{type(value).__name__} is not JSON data")
        return f"[removed: {type(value).__name__}]"

    def string(self, value: str, path: Path) -> str:
        size = len(value)
        if size > self.budget:
            self.problem(path, f"larger than {self.max_chars} characters in all")
            value = f"{value[:max(self.budget, 0)]}... [cut: {size} characters]"
            size = self.budget
        self.budget -= size
        if not value.isascii() and _SURROGATE.search(value):
            self.problem(path, "holds a lone surrogate (not valid Unicode text)")
            value = _SURROGATE.sub("\ufffd", value)
        return value

    def container(self, value: Any, path: Path, depth: int) -> Any:
        self.budget -= 1
        if depth > self.max_depth:
            self.problem(path, f"nested deeper than {self.max_depth} levels")
            return f"[cut: nested deeper than {self.max_depth} levels]"
        if isinstance(value, Mapping):
            return self.mapping(value, path, depth)
        out: list[Any] = []
        for item in value:
            if self.budget <= 0:
                self.problem(path, f"larger than {self.max_chars} characters in all")
                out.append(f"[cut: {len(value) - len(out)} more items]")
                break
            out.append(self.value(item, (*path, len(out)), depth))
        return out

    def mapping(self, value: Mapping[Any, Any], path: Path, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in value.items():
            if self.budget <= 0:
                self.problem(path, f"larger than {self.max_chars} characters in all")
                out["[cut]"] = f"{len(value) - len(out)} more entries"
                break
            if type(key) is not str:
                if not isinstance(key, str):
                    self.problem(path, f"key {_short(key)} is not a string")
                    key = repr(key)
                key = str.__str__(key)
            name = self.string(key, path)
            kind = type(item)
            if kind is bool or item is None or (kind is str and item.isascii()
                                                and len(item) < self.budget):
                self.budget -= 1 if kind is not str else len(item)  # the common cases, inline
                out[name] = item
            else:
                out[name] = self.value(item, (*path, name), depth)
        return out
