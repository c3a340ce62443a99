"""What a `ParseError` shows: the offending lines with a caret, a suggestion, a preview.

Pure text functions over the reply and the position `json` reported; the layout follows
handoff-guard's (`  2 | text` lines, a `^` under the column). Never parses JSON itself.
"""

from __future__ import annotations

import re

CONTEXT_LINES = 1
LINE_WIDTH = 80
PREVIEW_CHARS = 200
_INVALID_ESCAPE = re.compile(r"invalid \\?escape")


def snippet(text: str, line: int, col: int) -> str:
    """The error line and its neighbours, numbered, with a `^` under column `col`."""
    lines = text.splitlines()
    if not lines or line < 1:
        return ""
    at = min(line, len(lines)) - 1
    first, last = max(0, at - CONTEXT_LINES), min(len(lines), at + CONTEXT_LINES + 1)
    width = len(str(last))
    shown = []
    for index in range(first, last):
        content = lines[index]
        if len(content) > LINE_WIDTH:
            content = content[: LINE_WIDTH - 3] + "..."
        shown.append(f"  {index + 1:>{width}} | {content}")
        if index == at:
            caret = min(col - 1, len(content)) if col > 0 else 0
            shown.append(f"  {' ' * width} | {' ' * caret}^")
    return "\n".join(shown)


def _char_at(text: str, line: int, col: int) -> str:
    lines = text.splitlines()
    if 1 <= line <= len(lines) and 0 < col <= len(lines[line - 1]):
        return lines[line - 1][col - 1]
    return ""


def _unclosed(text: str) -> str:
    braces, brackets = text.count("{") - text.count("}"), text.count("[") - text.count("]")
    if braces > 0:
        return f"Missing closing brace. {braces} unclosed '{{' found."
    if brackets > 0:
        return f"Missing closing bracket. {brackets} unclosed '[' found."
    return "Unexpected end of input. Check for missing closing braces or brackets."


def suggest(reason: str, text: str, line: int, col: int) -> str:
    """A one-line fix for the `json` error `reason` at (line, col) of `text`, or ""."""
    lowered, char = reason.lower(), _char_at(text, line, col)
    if "unterminated string" in lowered:
        return "Missing closing quote. Check for unescaped quotes inside the string."
    if "expecting property name" in lowered:
        return ("Trailing comma before closing brace. Remove the comma." if char == "}"
                else "Object key must be a double-quoted string.")
    if "unexpected end" in lowered or "end of data" in lowered:
        return _unclosed(text)
    if "expecting value" in lowered:
        if char == ",":
            return "Trailing comma in array. Remove the comma before ']'."
        if char == "}":
            return "Missing value after colon."
        return "Expected a value (string, number, object, array, true, false, or null)."
    if "expecting ':'" in lowered:
        return "Missing colon after object key."
    if "expecting ',' delimiter" in lowered:
        return "Missing comma between elements, or extra content after a value."
    if _INVALID_ESCAPE.search(lowered):
        return "Invalid escape sequence. Use \\\\ for a backslash, or \\n, \\t, \\r, \\u."
    return ""


def preview(text: str) -> str:
    """The first characters of `text` on one line (newlines and tabs escaped), `...` if cut."""
    shown = text[:PREVIEW_CHARS] + ("..." if len(text) > PREVIEW_CHARS else "")
    return shown.replace("\n", "\\n").replace("\t", "\\t")
