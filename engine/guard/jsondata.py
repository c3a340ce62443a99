"""What JSON data cannot carry, found before a JSON Schema check: numbers that are not finite,
object keys that are not text, and nesting deeper than the engine ever accepts.

The schema validators would pass NaN through `minimum`/`maximum` (every comparison with it is
false), and they, like the quoting of refused values, recurse once per level of nesting, so a
deep enough value would raise `RecursionError`. `Engine.handoff` refuses the same values in
its caller data (`engine.runtime.json_data`, a layer the guard cannot import). Iterative:
any depth is safe to walk. Never validates against a schema.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.validation.cost import DEPTH
from engine.validation.shown import short_repr

MAX_DEPTH = DEPTH
"""Deepest nesting (the root container is level 1): the most `input_limits.max_depth` allows,
well within what the validators can recurse through."""


@dataclass(frozen=True, slots=True)
class Uncarried:
    """A value JSON data cannot carry: where it is, what is wrong and how to fix it
    (`{field}` in `fix` stands for the field path)."""

    path: tuple[Any, ...]
    problem: str
    fix: str


def uncarried(value: Any) -> Uncarried | None:
    """A value in `value` that JSON data cannot carry (the first one the walk meets), or None.

    Scalars are checked where they sit; only containers are queued, with their path."""
    if _not_finite(value):
        return _infinite((), value)
    stack: list[tuple[tuple[Any, ...], Any]] = [((), value)]
    while stack:
        path, current = stack.pop()
        entries = _entries(current)
        if entries is None:
            continue
        if len(path) >= MAX_DEPTH:
            return Uncarried(path, f"nested deeper than {MAX_DEPTH} levels",
                             "Nest '{field}' less deeply")
        keyed = isinstance(current, Mapping)
        for key, item in entries:
            if keyed and type(key) is not str and not isinstance(key, str):
                return Uncarried(path, f"key {short_repr(key)} is not a string: JSON object "
                                 "keys are text", "Make every key of '{field}' a string")
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue  # the common cases, without an isinstance check
            if _not_finite(item):
                return _infinite((*path, key), item)
            if kind is not float:
                stack.append(((*path, key), item))
    return None


def _not_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _infinite(path: tuple[Any, ...], number: float) -> Uncarried:
    problem = f"{number!r} is not a finite number: JSON data cannot carry NaN or infinity"
    return Uncarried(path, problem, "Replace '{field}' with a finite number")


def _entries(value: Any) -> Iterable[tuple[Any, Any]] | None:
    """(key or index, item) pairs of a mapping or array, None for any other value."""
    if isinstance(value, Mapping):
        return value.items()
    if isinstance(value, list | tuple):
        return enumerate(value)
    return None
