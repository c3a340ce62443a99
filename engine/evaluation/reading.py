"""Reading a corpus file safely: its bytes as numbered, decoded lines (bad bytes and overlong
lines reported, never raised), CSV rows bounded in lines and bytes (a stray quote costs its own
row, not the rest of the file), and JSON read without exceptions. Used by
`engine.evaluation.corpus`, which turns lines into rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

MAX_LINE = 64 * 1024
"""The longest line read (and the most bytes one CSV row may hold); a longer one is reported
and skipped."""

MAX_ROW_LINES = 32
"""The most lines one CSV row may span (a quoted text with line breaks). A quote left open
longer is taken for a stray one: that row is reported, and reading starts again on its next
line, so the rows after a stray quote are read, not swallowed into one text."""


class RowTooLong(Exception):
    """The CSV row being read spans more than `MAX_ROW_LINES` lines or `MAX_LINE` bytes."""


@dataclass(slots=True)
class Lines:
    """A binary file as decoded lines, numbered from 1; bad bytes become issues, not errors.
    It keeps the lines of the CSV row being read (from `start_row`), so that a row that turns
    out broken can be dropped and the lines after its first read again (`restart_after`)."""

    stream: IO[bytes]
    report: Callable[[int, str, str], None]
    number: int = 0
    row_start: int = 1
    spoiled: bool = False
    """A line of the row being read was bad (reported, and read as a blank line)."""
    _kept: list[tuple[int, str, bool]] = field(default_factory=list)
    _again: list[tuple[int, str, bool]] = field(default_factory=list)

    def __iter__(self) -> Iterator[str]:
        """The lines of the CSV row being read, and on (see `start_row`)."""
        while (found := self._next()) is not None:
            yield found

    def one_per_row(self) -> Iterator[str]:
        """Each line as a row of its own (JSON Lines)."""
        while True:
            self.start_row()
            found = self._next()
            if found is None:
                return
            yield found

    def start_row(self) -> None:
        self.row_start, self.spoiled = self.number + 1, False
        self._kept.clear()

    def restart_after(self, line: int) -> None:
        """Drop the row being read and read its lines after `line` again."""
        self._again[:0] = [kept for kept in self._kept if kept[0] > line]
        self._kept.clear()
        self.number = line

    def skip_quoted_rest(self) -> bool:
        """Read on to the line that closes the quoted text the row being read left open
        (within `MAX_ROW_LINES` lines of its start): True when there is one, and reading
        goes on after it."""
        quotes = self.quotes()
        while quotes % 2:
            if self.number - self.row_start + 1 >= MAX_ROW_LINES:
                return False
            found = self._read()
            if found is None:
                return False
            self._kept.append(found)  # read again if the quote turns out to be a stray one
            quotes += found[1].count('"')
        self._kept.clear()
        return True

    def quotes(self) -> int:
        """The quote characters in the lines of the row being read."""
        return sum(text.count('"') for _, text, _ in self._kept)

    def _next(self) -> str | None:
        found = self._read()
        if found is None:
            return None
        number, text, bad = found
        self._kept.append(found)
        self.spoiled = self.spoiled or bad
        if number - self.row_start >= MAX_ROW_LINES \
                or sum(len(kept[1]) for kept in self._kept) > MAX_LINE + 1:  # + its newline
            raise RowTooLong
        return text

    def _read(self) -> tuple[int, str, bool] | None:
        """The next line: (its number, its text, whether it was bad and read as blank)."""
        if self._again:
            found = self._again.pop(0)
            self.number = found[0]
            return found
        raw = self.stream.readline(MAX_LINE + 1)
        if not raw:
            return None
        self.number += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            self._skip_rest()
            self.report(self.number, "corpus-too-long",
                        f"line is longer than {MAX_LINE} bytes; skipped")
            return self.number, "\n", True
        try:
            return self.number, raw.decode("utf-8-sig" if self.number == 1 else "utf-8"), False
        except UnicodeDecodeError as error:
            where = f"byte 0x{raw[error.start]:02x} at column {error.start + 1}"
            self.report(self.number, "corpus-encoding", f"not valid UTF-8 ({where}); skipped")
            return self.number, "\n", True

    def _skip_rest(self) -> None:
        while True:
            chunk = self.stream.readline(MAX_LINE)
            if not chunk or chunk.endswith(b"\n"):
                return


def csv_error(error: Exception) -> str:
    """What went wrong with a CSV row, in the corpus's terms."""
    if isinstance(error, RowTooLong):
        return (f"a quoted text opened on this line is not closed within {MAX_ROW_LINES} "
                "lines (a stray quote?)")
    if "new-line character seen in unquoted field" in str(error):
        return "a line break inside a field that is not quoted (line endings of a lone CR?)"
    return str(error)


def read_json(text: str) -> tuple[Any, str]:
    """`text` read as JSON, or None and what is wrong with it."""
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as error:
        return None, error.msg
    except RecursionError:
        return None, "nested too deeply"
    except ValueError:  # an integer past the interpreter's digit limit
        return None, "a number with too many digits"
