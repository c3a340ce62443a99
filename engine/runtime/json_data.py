"""Caller data as JSON data within caps: a walk over a mapping that copies what is JSON data,
cuts what is too deep or too large, and notes each problem with where it is (`context.a[2]`).
Used for `Engine.handoff`'s context, tool arguments and results and for lifecycle moves'
results (`engine.runtime.inputs`). Never raises for bad data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from engine.config.models import InputLimits
from engine.records.limits import SURROGATE, has_surrogate

Note = Callable[[str, str], None]
"""Records a problem: (where, e.g. `context.a[2]`, and what is wrong)."""
Path = tuple[str | int, ...]
_INT_BOUND = 2**63


def short(value: Any) -> str:
    """`value` shown in a message: its repr, cut; never raises (a hostile `__repr__`, an
    integer too long to print)."""
    if type(value) is int and not -_INT_BOUND <= value < _INT_BOUND:
        return "an integer outside 64 bits"
    try:
        text = repr(value)
    except Exception:
        return f"a {type(value).__name__} that cannot be shown"
    return text if len(text) <= 40 else text[:37] + "..."


def _where(path: Path) -> str:
    text = str(path[0])
    for part in path[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part[:40]}"
    return text


class Walk:
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
        if has_surrogate(value):
            self.problem(path, "holds a lone surrogate (not valid Unicode text)")
            value = SURROGATE.sub("\ufffd", value)
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
                    self.problem(path, f"key {short(key)} is not a string")
                    key = short(key)
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
