"""Indentation mistakes said in the author's words: which line is indented how far, and what
it lines up with, instead of the parser's tokens ("expected <block end>").

Reads the source text around a problem the parser (or the schema) already located; it never
parses. Each function returns None when the text does not show the mistake it knows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.issues import Issue

_KEY = re.compile(r"""(?:"[^"]*"|'[^']*'|[^\s#'"\-?:][^#]*?|-[^\s#][^#]*?)\s*:(?:\s|$)""")


@dataclass(frozen=True, slots=True)
class _Line:
    """One line of content: its number (1-based), indentation and text without it."""

    number: int
    indent: int
    text: str

    @property
    def what(self) -> str:
        """How an author names the line: its key (`'trigger'`) or list item (`'- write'`)."""
        if self.text.startswith("- ") or self.text == "-":
            return repr(" ".join(self.text.split()[:2]))
        key = _KEY.match(self.text)
        return repr(key.group(0).rstrip().rstrip(":").strip() if key else self.text)

    @property
    def holds_a_value(self) -> bool:
        """A `key: value` or `- value` line whose value is a plain word, not a nested block."""
        if self.text.startswith("- "):
            rest = self.text[2:].strip()
            return bool(rest) and _KEY.match(rest) is None and rest[0] not in "[{|>&*!"
        key = _KEY.match(self.text)
        rest = self.text[key.end():].split(" #")[0].strip() if key else ""
        return bool(rest) and rest[0] not in "[{|>&*!"


def _content(lines: list[str], number: int) -> _Line | None:
    """Line `number` as content, or None for a blank line or a comment."""
    raw = lines[number - 1]
    text = raw.lstrip(" ")
    if not text.strip() or text.startswith("#"):
        return None
    return _Line(number, len(raw) - len(text), text.rstrip())


def _above(lines: list[str], number: int) -> list[_Line]:
    """The lines that enclose line `number`: the content line just above it, then each earlier
    line indented less than the last one found (the open keys and items, innermost first)."""
    found: list[_Line] = []
    for above in range(number - 1, 0, -1):
        line = _content(lines, above)
        if line is not None and (not found or line.indent < found[-1].indent):
            found.append(line)
            if line.indent == 0:
                break
    return found


def _spaces(count: int) -> str:
    return f"{count} space{'' if count == 1 else 's'}"


def misaligned_line(text: str, line: int) -> str | None:
    """Line `line` is indented to a depth no line above it opened (the parser says "expected
    <block end>"): say how deep it is and which depths it could mean."""
    lines = text.splitlines()
    if not 0 < line <= len(lines) or (here := _content(lines, line)) is None:
        return None
    levels = _above(lines, line)
    if not levels or any(level.indent == here.indent for level in levels):
        return None
    choices = " or ".join(
        f"by {level.indent} like {level.what} (line {level.number})" for level in levels
    )
    return (f"line {line} is indented {_spaces(here.indent)}, which lines up with no key or "
            f"list item above it: indent {here.what} {choices}")


def continued_value(text: str, line: int, col: int) -> str | None:
    """A `key:` the parser refused ("mapping values are not allowed here"): on a line indented
    deeper than a key whose value is already given, YAML reads it as more of that value; on
    its own line after another `key: `, the value holds ': ' and needs quotes."""
    lines = text.splitlines()
    if not 0 < line <= len(lines) or (here := _content(lines, line)) is None:
        return None
    key = _KEY.match(here.text)
    if key is not None and here.indent + key.end() < col:
        return (f"the value on line {line} contains ': ', which YAML reads as the start of "
                "another key: put the value in quotes")
    above = _above(lines, line)
    if not above or above[0].indent >= here.indent or not above[0].holds_a_value:
        return None
    return (f"{here.what} (line {line}) is indented {_spaces(here.indent)}, deeper than "
            f"{above[0].what} (line {above[0].number}, {_spaces(above[0].indent)}), whose value "
            f"is already given, so YAML reads it as more of that value: indent it by "
            f"{above[0].indent} like {above[0].what} to make it a key beside it")


def merged_item(text: str, line: int) -> str | None:
    """A list item indented deeper than the item on line `line` is read as more of that
    item's text (`- write` then `   - summarize` is the one item 'write - summarize')."""
    lines = text.splitlines()
    if not 0 < line < len(lines) or (item := _content(lines, line)) is None:
        return None
    following = _content(lines, line + 1)
    if (not item.holds_a_value or following is None or following.indent <= item.indent
            or not following.text.startswith("- ")):
        return None
    return (f"{following.what} (line {following.number}) is indented deeper than {item.what} "
            f"(line {line}), so YAML reads both as one item: line up its '-' with line {line}'s "
            f"({_spaces(item.indent)})")


def merged_items_said(issues: list[Issue], text: str) -> list[Issue]:
    """Schema issues, each at a list item that swallowed the next, deeper-indented item
    saying so first (the value they complain about is two items read as one)."""
    said = [merged_item(text, found.line) if found.line > 0 else None for found in issues]
    return [found if hint is None else replace(found, message=f"{hint}; {found.message}")
            for found, hint in zip(issues, said, strict=True)]
