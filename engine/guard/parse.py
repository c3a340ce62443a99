"""`parse_json` (seed 004): find and read the JSON in a model's reply.

Tries strict JSON first, then a fenced code block, then the first object or array embedded
in chat text, then the forgiving reader in `repair`. Raises `ParseError` (line, column,
preview) when nothing sensible is left. Knows nothing about schemas or retries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, overload

from engine.errors import ParseError
from engine.guard.repair import RepairFailed, repair

_FENCE = "```"
_PREVIEW_RADIUS = 30


@dataclass(frozen=True, slots=True)
class ParseResult:
    """`parse_json(..., detailed=True)`: the data, whether the text looked cut off
    (a token limit) and whether broken syntax had to be repaired."""

    data: Any
    truncated: bool = False
    repaired: bool = False


def _fenced_block(text: str) -> str | None:
    """The body of the first ``` fenced block (language tag dropped), even if unclosed."""
    start = text.find(_FENCE)
    if start < 0:
        return None
    body_start = text.find("\n", start)
    if body_start < 0:
        return None
    end = text.find(_FENCE, body_start)
    return text[body_start + 1 : end if end >= 0 else len(text)].strip()


def _balanced_span(text: str) -> tuple[str, bool] | None:
    """From the first `{` or `[` to its matching closer: `(span, closed)`.

    When the closer never comes, the span runs to the end of the text and `closed` is False.
    """
    start = next((i for i, char in enumerate(text) if char in "{["), -1)
    if start < 0:
        return None
    depth, quote, escaped = 0, "", False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            escaped, quote = (False, quote) if escaped else (char == "\\", "" if char == quote
                                                             else quote)
            continue
        if char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[start : index + 1], True
    return text[start:], False


def _strict(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return _NOTHING


_NOTHING = object()


def _error(text: str, error: json.JSONDecodeError | None, reason: str) -> ParseError:
    if error is None:
        return ParseError(reason)
    lo, hi = max(0, error.pos - _PREVIEW_RADIUS), error.pos + _PREVIEW_RADIUS
    preview = text[lo:hi]
    return ParseError(f"{reason}: {error.msg}", line=error.lineno, col=error.colno,
                      preview=preview)


def _recover(cleaned: str) -> ParseResult | None:
    """Look for JSON inside chat text or a fence, repairing it if needed."""
    fenced = _fenced_block(cleaned)
    candidates = [fenced] if fenced is not None else []
    candidates.append(cleaned)
    for candidate in candidates:
        span = _balanced_span(candidate)
        if span is None:
            continue
        text, _closed = span
        data = _strict(text)
        if data is not _NOTHING:
            return ParseResult(data)
        try:
            data, truncated = repair(text)
        except RepairFailed:
            continue
        return ParseResult(data, truncated=truncated, repaired=True)
    return None


@overload
def parse_json(text: str, *, detailed: Literal[False] = False) -> Any: ...


@overload
def parse_json(text: str, *, detailed: Literal[True]) -> ParseResult: ...


def parse_json(text: str, *, detailed: bool = False) -> Any:
    """Parse the JSON in `text`, a model's reply: strict JSON is returned as is; otherwise
    a BOM, code fences and surrounding chat are stripped and common breakage is repaired.

    With `detailed=True` returns a `ParseResult` with `truncated` / `repaired` flags.
    Raises `ParseError` (a `ValueError`, retried by `@guard`) when no JSON is found.
    """
    if not isinstance(text, str):
        raise ParseError(f"expected a string of JSON, got {type(text).__name__}",
                         preview=repr(text)[:_PREVIEW_RADIUS * 2])
    cleaned = text.lstrip("\ufeff")
    first_error: json.JSONDecodeError | None = None
    try:
        result = ParseResult(json.loads(cleaned))
    except json.JSONDecodeError as error:
        first_error = error
        found = _recover(cleaned)
        if found is None:
            raise _error(cleaned, first_error, "no JSON object or array found") from error
        result = found
    return result if detailed else result.data
