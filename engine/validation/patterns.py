"""JSON Schema `pattern` text run by RE2: linear time in the length of the input.

Patterns come from config files but match untrusted text (LLM output), so they never reach
Python's backtracking `re`. RE2 anchors like ECMA-262 (`$` only at the very end of the input,
never before a final newline). A pattern RE2 cannot run (lookaround, backreference) is refused
with RE2's reason; there is no fallback to a backtracking engine. Schema patterns are compiled
once and kept; a caller's text judged as a pattern (`is_regex`) is compiled under a memory cap
and dropped.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

from engine.validation.budget import charge

CALLER_PATTERN_MAX_CHARS = 1_000
"""Longest caller text that can count as a regex."""
CALLER_PATTERN_MAX_MEM = 256 << 10
"""Bytes of compiled program a caller's text may need to count as a regex (RE2's default cap,
used for schema patterns, is 8 MiB)."""
CALLER_PATTERN_UNITS_PER_CHAR = 10
"""Work units charged per character of a caller's text compiled (a Unicode class such as
`\\pL` takes tens of microseconds to parse), on top of `_COMPILE_UNITS` per compile."""
_COMPILE_UNITS = 50

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every refused pattern to stderr
_OPTIONS.never_capture = True  # only "does it match?" is asked
_CALLER_OPTIONS = re2.Options()
_CALLER_OPTIONS.log_errors = False
_CALLER_OPTIONS.never_capture = True
_CALLER_OPTIONS.max_mem = CALLER_PATTERN_MAX_MEM
_ESCAPES = re.compile(r"\\(?:\\|u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,6})\})")


class PatternError(ValueError):
    """A pattern the linear-time engine cannot compile; `reason` is RE2's explanation."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"pattern {pattern!r}: {reason}")
        self.pattern = pattern
        self.reason = reason


def _translate(pattern: str) -> str:
    """ECMA-262 escapes RE2 spells differently: `\\uXXXX` and `\\u{X...}` become `\\x{...}`."""

    def replace(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        return match.group(0) if code is None else "\\x{" + code + "}"

    return _ESCAPES.sub(replace, pattern)


def _compile(pattern: str, options: Any, *, keep: bool = True) -> Any:
    encoded = _translate(pattern).encode("utf-8", "surrogatepass")
    try:  # `re2.compile` keeps the last 128 programs; `_Regexp` builds one that is dropped
        return re2.compile(encoded, options) if keep else re2._Regexp(encoded, options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise PatternError(pattern, text) from None


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """The compiled RE2 program of schema pattern `pattern` (kept: schemas are few and come
    from config); raises PatternError when RE2 refuses it."""
    return _compile(pattern, _OPTIONS)


def is_regex(text: str) -> bool:
    """Whether a caller's `text` is a pattern RE2 runs: at most `CALLER_PATTERN_MAX_CHARS`
    long, compiled within `CALLER_PATTERN_MAX_MEM`. The program is dropped at once, never
    cached anywhere; its compile is charged to the running check."""
    if len(text) > CALLER_PATTERN_MAX_CHARS:
        charge(1)
        return False
    charge(_COMPILE_UNITS + CALLER_PATTERN_UNITS_PER_CHAR * len(text))
    try:
        _compile(text, _CALLER_OPTIONS, keep=False)
    except PatternError:
        return False
    return True


def matches(pattern: str, text: str) -> bool:
    """True when `pattern` matches somewhere in `text` (JSON Schema `pattern` semantics).

    Never raises for any text: lone surrogates are passed as bytes RE2 matches no letter to.
    """
    return compile_pattern(pattern).search(text.encode("utf-8", "surrogatepass")) is not None
