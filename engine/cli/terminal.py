"""The conventions every `handoff` command shares: verbosity, colour, the version flag, and
caller text made safe to print (`printable`, `json_safe`).

`-q` prints findings only, `-v` adds progress on stderr. Colour follows `--color`, else
`NO_COLOR` (off) and `FORCE_COLOR` (on), else whether stdout is a terminal. Formatting only:
this module never decides what a command reports.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import TextIO

COLORS = ("auto", "always", "never")
_CODES = {"red": "31", "yellow": "33", "green": "32", "bold": "1", "dim": "2"}


@dataclass(frozen=True, slots=True)
class Terminal:
    """How one run prints: `verbosity` (-1 quiet, 0 normal, 1+ verbose) and `color`."""

    verbosity: int = 0
    color: bool = False

    @property
    def quiet(self) -> bool:
        return self.verbosity < 0

    def paint(self, text: str, style: str) -> str:
        """`text` in an ANSI style ("red", "yellow", "green", "bold", "dim") when colour is on."""
        return f"\033[{_CODES[style]}m{text}\033[0m" if self.color else text

    def info(self, message: str) -> None:
        """A progress line on stderr, printed only with -v."""
        if self.verbosity > 0:
            print(message, file=sys.stderr)


_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
"""DEL, C1, line and paragraph separators, bidi controls: what JSON encoders leave as it is."""
_CONTROLS = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")  # C0 too: ESC, line breaks, ...
_IN_JSON = re.compile(f"[{_BEYOND_C0}]")  # in a string, a JSON encoder escapes every C0


def printable(text: str) -> str:
    """`text` safe to print on a terminal: every control character is shown as an escape
    (`\\x1b`, `\\x0a`, `\\u202e`), so text from callers or imports cannot move the cursor,
    set the window title, forge an output line or reorder what is shown."""
    if text.isascii() and text.isprintable():
        return text
    return _CONTROLS.sub(_escape, text)


def json_safe(text: str) -> str:
    """JSON text with the control characters an encoder may leave as they are (DEL, C1, line
    separators, bidi controls) written as `\\uXXXX` escapes: the same JSON value, safe to print."""
    if text.isascii() and "\x7f" not in text:
        return text
    return _IN_JSON.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def wants_color(choice: str, stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Whether to colour `stream`: --color always|never wins, then NO_COLOR, then FORCE_COLOR,
    then whether the stream is a terminal."""
    env = os.environ if environ is None else environ
    if choice != "auto":
        return choice == "always"
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return stream.isatty()


def add_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """-q, -v and --color on `parser`; the top-level parser sets the defaults, subcommands
    leave them alone unless given (so both `handoff -q check` and `handoff check -q` work)."""
    default = (lambda value: value) if top else (lambda _value: argparse.SUPPRESS)
    parser.add_argument("-q", "--quiet", action="store_true", default=default(False),
                        help="print findings only: no summary or progress lines")
    parser.add_argument("-v", "--verbose", action="count", default=default(0),
                        help="print progress on stderr (repeatable)")
    parser.add_argument("--color", choices=COLORS, default=default("auto"),
                        help="colour the text output (default: auto: on a terminal, off with "
                             "NO_COLOR, on with FORCE_COLOR)")


def from_args(args: argparse.Namespace) -> Terminal:
    verbosity = -1 if args.quiet else args.verbose
    return Terminal(verbosity=verbosity, color=wants_color(args.color, sys.stdout))
