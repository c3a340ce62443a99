"""JSON Schema `pattern` text run by RE2: linear time in the length of the input.

Patterns come from config files but match untrusted text (LLM output), so they never reach
Python's backtracking `re`. RE2 anchors like ECMA-262 (`$` only at the very end of the input,
never before a final newline). A pattern RE2 cannot run (lookaround, backreference) is refused
with RE2's reason; there is no fallback to a backtracking engine.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every refused pattern to stderr
_OPTIONS.never_capture = True  # only "does it match?" is asked
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


@functools.lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> Any:
    """The compiled RE2 program of `pattern`; raises PatternError when RE2 refuses it."""
    try:
        return re2.compile(_translate(pattern).encode("utf-8", "surrogatepass"), _OPTIONS)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise PatternError(pattern, text) from None


def matches(pattern: str, text: str) -> bool:
    """True when `pattern` matches somewhere in `text` (JSON Schema `pattern` semantics).

    Never raises for any text: lone surrogates are passed as bytes RE2 matches no letter to.
    """
    return compile_pattern(pattern).search(text.encode("utf-8", "surrogatepass")) is not None
