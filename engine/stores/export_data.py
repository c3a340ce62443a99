"""The JSON data an export item may hold, checked as every store keeps it: integers within
64 bits, finite numbers, text without lone surrogates, at most `ITEM_MAX_DEPTH` levels; and the
paths that locate a problem inside an item, even one too deep to decode.

Pure functions over decoded values and JSON text; reading files is `export_items`' job.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from engine.records.limits import has_surrogate

ITEM_MAX_DEPTH = 200
"""Deepest nesting of an item (the record itself is level 1)."""
Path = tuple[str | int, ...]
_INT_BOUND = 2**63
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class BigInt:
    """An integer literal too long to read as a number of 64 bits (kept as its digit count)."""

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))


class Decoder(json.JSONDecoder):
    """The standard decoder, counting in `odd` the numbers it read that `data_problem` may
    refuse (19 digits or more, not finite), and reading long integers as `BigInt`."""

    def __init__(self) -> None:
        super().__init__(parse_int=self._int, parse_float=self._float,
                         parse_constant=self._constant)
        self.odd = 0

    def _int(self, text: str) -> int | BigInt:
        if len(text) < 19:
            return int(text)
        self.odd += 1
        return BigInt(text) if len(text) > 20 else int(text)

    def _float(self, text: str) -> float:
        value = float(text)
        self.odd += not math.isfinite(value)
        return value

    def _constant(self, name: str) -> float:
        self.odd += 1
        return float(name)


def where(path: Path) -> str:
    """`request.context.a[2]`; a deep path shows its first levels and how deep it goes, a key
    that is not printable text its `repr` (never a control character to a terminal)."""
    shown = "".join(f"[{part}]" if isinstance(part, int) else f".{_key(part)}" for part in path[:8])
    more = f"... ({len(path)} levels)" if len(path) > 8 else ""
    return (shown.lstrip(".") + more) or "<record>"


def _key(key: str) -> str:
    return key[:40] if key.isprintable() else repr(key[:40])


def data_problem(value: Any) -> tuple[Path, str] | None:
    """(path, what is wrong) for the first value in `value` that is not JSON data a store keeps
    (finite numbers, integers within 64 bits, text without lone surrogates, at most
    `ITEM_MAX_DEPTH` levels), or None. Iterative: any depth is safe to walk."""
    stack: list[tuple[Any, Path]] = [(value, ())]
    while stack:
        current, path = stack.pop()
        if len(path) >= ITEM_MAX_DEPTH:
            return path, f"nested deeper than {ITEM_MAX_DEPTH} levels"
        pairs = current.items() if isinstance(current, dict) else enumerate(current)
        for key, item in pairs:
            if type(key) is str and has_surrogate(key):
                return (*path, key), "a key holds a lone surrogate (not valid Unicode text)"
            kind = type(item)
            if kind is dict or kind is list:
                stack.append((item, (*path, key)))
            elif item is not None and kind is not bool:
                problem = _scalar_problem(item)
                if problem is not None:
                    return (*path, key), problem
    return None


def _scalar_problem(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        bad = has_surrogate(value)
        return "holds a lone surrogate (not valid Unicode text)" if bad else None
    if kind is int:
        return None if -_INT_BOUND <= value < _INT_BOUND else "integer outside 64 bits"
    if kind is float:
        return None if math.isfinite(value) else f"{value} is not a finite number"
    if kind is BigInt:
        return f"integer of {value.digits} digits, outside 64 bits"
    return f"{kind.__name__} is not JSON data"


def suspect(text: str) -> bool:
    """False if `text` cannot hold nesting too deep (too few brackets) nor a lone surrogate."""
    if text.count("{") + text.count("[") >= ITEM_MAX_DEPTH:
        return True
    if "\\u" in text and _ESCAPED_SURROGATE.search(text):
        return True
    return has_surrogate(text)


_KEY_END = re.compile(r"\s*:")


def deep_path(text: str, start: int, limit: int) -> Path:
    """The path to the first container of the JSON value at `text[start:]` that lies deeper
    than `limit` levels, read only that far (for values too deep to decode)."""
    path: list[str | int] = []
    key: str | int = ""
    pos = start
    while pos < len(text) and len(path) <= limit:
        char = text[pos]
        if char == '"':
            end = _string_end(text, pos)
            if isinstance(key, str) and _KEY_END.match(text, end):
                key = json.loads(text[pos:end])
            pos = end
            continue
        if char in "[{":
            path.append(key)
            key = 0 if char == "[" else ""
        elif char in "]}":
            key = path.pop() if path else ""
        elif char == "," and isinstance(key, int):
            key += 1
        pos += 1
    return tuple(path[1:])


def _string_end(text: str, start: int) -> int:
    """The position after the closing quote of the JSON string at `start`."""
    pos = start + 1
    while pos < len(text):
        char = text[pos]
        if char == "\\":
            pos += 2
        elif char == '"':
            return pos + 1
        else:
            pos += 1
    return pos
