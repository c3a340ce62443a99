"""`parse_json` (seed 004): find and read the JSON in a model's reply.

Tries strict JSON first, then a fenced code block, then the first object or array embedded
in chat text (read by the C decoder), then the forgiving reader in `repair`. Raises
`ParseError` (located, with the seed's diagnostic layout) when nothing sensible is left, and
for JSON Python cannot hold (nested past the recursion limit, an integer of thousands of
digits). Knows nothing about schemas or retries.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal, overload

from engine.errors import ParseError
from engine.guard import diagnose
from engine.guard.repair import RepairFailed, repair

_FENCE = "```"
_OPENER = re.compile(r"[{\[]")
_DECODER = json.JSONDecoder()
RAW_OUTPUT_CHARS = 500


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


def _strict(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return _NOTHING


def _embedded(text: str) -> tuple[Any, int]:
    """The strict JSON value starting at the first `{` or `[` of `text` (what follows it is
    ignored) and that position; `_NOTHING` when it is not strict JSON; -1 without an opener."""
    found = _OPENER.search(text)
    if found is None:
        return _NOTHING, -1
    try:
        return _DECODER.raw_decode(text, found.start())[0], found.start()
    except json.JSONDecodeError:
        return _NOTHING, found.start()


_NOTHING = object()


def _error(text: str, error: json.JSONDecodeError) -> ParseError:
    """The seed's diagnostic for the first decode error of `text`."""
    return ParseError(
        f"JSON parse error: {error.msg}", text[:RAW_OUTPUT_CHARS], error,
        line=error.lineno, col=error.colno,
        snippet=diagnose.snippet(text, error.lineno, error.colno),
        suggestion=diagnose.suggest(error.msg, text, error.lineno, error.colno),
        preview=diagnose.preview(text),
    )


def _unholdable(text: str, error: Exception) -> ParseError:
    """The `ParseError` for JSON the decoder gave up on with an error of its own (not a
    `JSONDecodeError`): `RecursionError` for nesting too deep, `ValueError` for an integer
    past Python's digit limit. Both must be a `ParseError`, which `@guard` retries."""
    if isinstance(error, RecursionError):
        reason, fix = "nested too deep to read", "Return JSON with less nesting"
    else:
        reason, fix = "a number is too long to read", "Write very long numbers as strings"
    return ParseError(f"JSON parse error: {reason}", text[:RAW_OUTPUT_CHARS], error,
                      suggestion=fix, preview=diagnose.preview(text))


def _recover(cleaned: str) -> ParseResult | None:
    """Look for JSON inside a fence or chat text, repairing it only when no candidate holds
    strict JSON (a ``` inside a JSON string cuts the fence short, not the document)."""
    fenced = _fenced_block(cleaned)
    candidates = [fenced] if fenced is not None else []
    candidates.append(cleaned)
    starts = []
    for candidate in candidates:
        data = _strict(candidate) if candidate is fenced else _NOTHING
        if data is not _NOTHING:
            return ParseResult(data)
        data, start = _embedded(candidate)
        if data is not _NOTHING:
            return ParseResult(data)
        starts.append(start)
    for candidate, start in zip(candidates, starts, strict=True):
        if start < 0:
            continue
        try:
            data, truncated = repair(candidate[start:])
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
    Raises `ParseError` (a `ValueError`, retried by `@guard`) when no JSON is found, or
    when it is nested too deep or holds a number too long for Python to read.
    """
    if not isinstance(text, str):
        shown = repr(text)[:RAW_OUTPUT_CHARS]
        raise ParseError(f"Expected string, got {type(text).__name__}", shown,
                         TypeError(f"expected str, got {type(text).__name__}"),
                         preview=diagnose.preview(shown))
    try:
        result = _parse(text)
    except ParseError:
        raise
    except (RecursionError, ValueError) as error:  # a decode error is a ParseError by now
        raise _unholdable(text, error) from error
    return result if detailed else result.data


def _parse(text: str) -> ParseResult:
    """Strict JSON, else what `_recover` finds; a `ParseError` for the first decode error."""
    cleaned = text.lstrip("\ufeff")
    try:
        return ParseResult(json.loads(cleaned))
    except json.JSONDecodeError as error:
        found = _recover(cleaned)
        if found is None:
            raise _error(text, error) from error
        return found
