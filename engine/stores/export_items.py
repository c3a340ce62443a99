"""An export's items, read one at a time from a stream (a JSON list or JSON Lines), each with
the line it starts on, and checked to be JSON data that every store keeps.

Memory is bounded by the largest item (`ITEM_MAX_CHARS`), never by the file. Errors locate the
item (index, line, and the path inside it); records are validated elsewhere (`transfer`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import IO, Any, Literal

from engine.errors import RecordImportError, UsageError
from engine.stores.export_data import (
    ITEM_MAX_DEPTH,
    Decoder,
    Path,
    data_problem,
    deep_path,
    suspect,
    where,
)

Format = Literal["json", "jsonl"]
ITEM_MAX_CHARS = 16 * 2**20
"""Longest item of an export, in characters of JSON (16 MiB)."""
_CHUNK = 2**16


def read_items(
    source: IO[str], *, fmt: Format | None = None, name: str = ""
) -> Iterator[tuple[int, Any]]:
    """(line, item) for each item of an export in `source`; `fmt` is guessed from the first
    character when None. `name` (the file) goes into error messages."""
    reader = _Reader(source, name, _CHUNK)
    first = reader.peek()
    if fmt is None:
        fmt = "json" if first in ("[", None) else "jsonl"
    return _lines(reader) if fmt == "jsonl" else _list(reader)


def _lines(reader: _Reader) -> Iterator[tuple[int, Any]]:
    number, pending, index = reader.line_at(reader.pos) - 1, reader.take(), 0
    while True:
        cut = pending.find("\n")
        if cut < 0 and len(pending) <= ITEM_MAX_CHARS:  # the rest of the line, within the cap
            reader.line = number + 1  # for a message about what the stream holds next
            pending += reader.readline(ITEM_MAX_CHARS + 1 - len(pending))
            cut = pending.find("\n")
        if not pending:
            return
        number += 1
        line, pending = (pending, "") if cut < 0 else (pending[:cut], pending[cut + 1:])
        if len(line) > ITEM_MAX_CHARS:
            raise reader.error(index, number, f"larger than {ITEM_MAX_CHARS} characters")
        if line.strip():
            yield number, reader.decode(line, index, number)
            index += 1


def _list(reader: _Reader) -> Iterator[tuple[int, Any]]:
    if reader.peek() is None:
        return
    reader.expect("[", "a JSON export is a list of records")
    index = 0
    while (found := reader.peek()) != "]":
        if found is None:
            raise reader.usage("the list ends without ']' (a cut-off file?)")
        if index:
            reader.expect(",", "records in a JSON list are separated by ','")
        yield reader.item(index)
        index += 1
    reader.pos += 1
    if reader.peek() is not None:
        raise reader.usage("text after the end of the list")


class _Reader:
    """A window on the stream: `buffer[pos:]` is unread; lines are counted up to `counted`."""

    def __init__(self, source: IO[str], name: str, chunk: int) -> None:
        self.source, self.name, self.chunk = source, name, chunk
        self.buffer, self.pos, self.counted, self.line = "", 0, 0, 1
        self.decoder = Decoder()

    def read(self, size: int) -> str:
        return self._decoded(lambda: self.source.read(size))

    def readline(self, size: int) -> str:
        return self._decoded(lambda: self.source.readline(max(size, 1)))

    def _decoded(self, read: Callable[[], str]) -> str:
        try:
            return read()
        except UnicodeDecodeError as error:
            raise self.usage(f"not UTF-8 text from here on ({error.reason})") from None

    def usage(self, detail: str) -> UsageError:
        place = f"{self.name}:" if self.name else "import: line "
        return UsageError(f"{place}{self.line_at(self.pos)}: {detail}")

    def take(self) -> str:
        """The unread text (line reading goes on from the stream)."""
        text, self.buffer, self.pos, self.counted = self.buffer[self.pos:], "", 0, 0
        return text

    def fill(self, at_least: int) -> bool:
        """Read at least `at_least` more characters (fewer at the end); False at the end."""
        self.line_at(self.pos)  # count the lines of what is dropped
        self.buffer, self.counted, self.pos = self.buffer[self.pos:], 0, 0
        more = self.read(max(at_least, self.chunk))
        self.buffer += more
        return bool(more)

    def line_at(self, position: int) -> int:
        self.line += self.buffer.count("\n", self.counted, position)
        self.counted = position
        return self.line

    def peek(self) -> str | None:
        """The next character that is not white space (consumed up to it), None at the end."""
        while True:
            buffer, pos = self.buffer, self.pos
            while pos < len(buffer) and buffer[pos] in " \t\r\n":
                pos += 1
            self.pos = pos
            if pos < len(buffer):
                return buffer[pos]
            if not self.fill(self.chunk):
                return None

    def expect(self, char: str, why: str) -> None:
        found = self.peek()
        if found != char:
            shown = "the end" if found is None else repr(found)
            raise self.usage(f"expected {char!r} ({why}), found {shown}")
        self.pos += 1

    def item(self, index: int) -> tuple[int, Any]:
        """The next list item and its line; reads on until it is complete."""
        self.peek()
        while True:
            start = self.pos
            try:
                odd = self.decoder.odd
                value, end = self.decoder.raw_decode(self.buffer, start)
            except json.JSONDecodeError as error:
                if self._grown(index, start):
                    continue
                line = self.line_at(start)
                at = line + self.buffer.count("\n", start, error.pos)
                raise self.error(index, line, f"not valid JSON at line {at}: {error.msg}"
                                 ) from None
            except (RecursionError, ValueError) as error:
                raise self.error(index, self.line_at(start), _why(error, self.buffer, start)
                                 ) from None
            cut = end == len(self.buffer) and not isinstance(value, (dict, list, str))
            if cut and self._grown(index, start):  # a number may go on in the next chunk
                continue
            line = self.line_at(start)
            if end - start > ITEM_MAX_CHARS:
                raise self.error(index, line, f"larger than {ITEM_MAX_CHARS} characters")
            self.pos = end
            return line, self.checked(value, index, line, self.buffer[start:end], odd)

    def _grown(self, index: int, start: int) -> bool:
        """Read on for an item that may be cut off at the end of the buffer; False at the end."""
        pending = len(self.buffer) - start
        if pending > ITEM_MAX_CHARS:
            raise self.error(index, self.line_at(start), f"larger than {ITEM_MAX_CHARS} characters")
        return self.fill(pending)

    def decode(self, text: str, index: int, line: int) -> Any:
        try:
            odd = self.decoder.odd
            value = self.decoder.decode(text)
        except json.JSONDecodeError as error:
            detail = f"not valid JSON: {error.msg} (column {error.colno})"
            raise self.error(index, line, detail) from None
        except (RecursionError, ValueError) as error:
            raise self.error(index, line, _why(error, text, 0)) from None
        return self.checked(value, index, line, text, odd)

    def checked(self, value: Any, index: int, line: int, text: str, odd: int) -> Any:
        """`value`, decoded from `text`, if it is JSON data a store keeps. Only an item that
        may hold a value to refuse is walked (most hold none): odd numbers (`odd` was the
        decoder's count before), many brackets, or what may be a lone surrogate."""
        walk = self.decoder.odd != odd or suspect(text)
        if isinstance(value, (dict, list)) and walk:
            problem = data_problem(value)
            if problem is not None:
                path, detail = problem
                raise self.error(index, line, f"{where(path)}: {detail}", problem)
        return value

    def error(self, index: int, line: int, detail: str,
              problem: tuple[Path, str] | None = None) -> RecordImportError:
        problems = () if problem is None else (problem,)
        return RecordImportError(index, detail, problems=problems, line=line, source=self.name)


def _why(error: Exception, text: str, start: int) -> str:
    """What a decoding error other than bad syntax means: nesting past the decoder's depth."""
    if isinstance(error, RecursionError):
        path = deep_path(text, start, ITEM_MAX_DEPTH)
        return f"{where(path)}: nested deeper than {ITEM_MAX_DEPTH} levels"
    return f"not valid JSON data: {error}"


