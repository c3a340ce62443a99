"""Syntax problems of the parse stage: a ruamel.yaml error -> one located issue, and text that
YAML parsers disagree on.

Names the forbidden character, the tab used for indentation, or ruamel's own problem text at
its line and column (`yaml-syntax`, `yaml-tab`); says why `[?x]` is ambiguous
(`yaml-ambiguous`). It never parses.
"""

from __future__ import annotations

import re

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

from engine.config.codes import issue
from engine.config.positions import Position
from engine.issues import Issue

_TAB_INDENT = re.compile(r"^[ ]*\t", re.MULTILINE)


def _offset_position(text: str, offset: int) -> Position:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def syntax_issue(file: str, text: str, error: YAMLError) -> Issue:
    mark = getattr(error, "problem_mark", None)
    position = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    if isinstance(error, ReaderError):  # a character YAML forbids (NUL, other controls)
        where = _offset_position(text, error.position)
        message = f"character U+{ord(text[error.position]):04X} is not allowed in YAML"
        return issue(file, where, "", "yaml-syntax", message)
    tab = _TAB_INDENT.search(text)
    if tab is not None:
        line = text.count("\n", 0, tab.end()) + 1
        col = tab.end() - text.rfind("\n", 0, tab.end()) - 1
        return issue(file, (line, col), "", "yaml-tab", "tabs are not allowed for indentation")
    problem = getattr(error, "problem", None) if isinstance(error, MarkedYAMLError) else None
    started = _started(error, text) if isinstance(error, MarkedYAMLError) else None
    if started is not None:
        return issue(file, started[0], "", "yaml-syntax", started[1])
    message = str(problem or error).strip()
    context = getattr(error, "context_mark", None)
    if problem is not None and context is not None and context.line != position[0] - 1:
        what = _construct(str(getattr(error, "context", "") or "a construct"))
        message += f" (in the {what} that starts at line {context.line + 1})"
    return issue(file, position, "", "yaml-syntax", message)


_PLAIN_NAMES = {
    "flow sequence": "[...] list",
    "flow mapping": "{...} mapping",
    "block mapping": "mapping",
    "block collection": "list or mapping",
    "quoted scalar": "quoted text",
}


def _construct(context: str) -> str:
    """'while parsing a flow sequence' -> '[...] list'."""
    for lead in ("while scanning ", "while parsing ", "a ", "an "):
        context = context.removeprefix(lead)
    return _PLAIN_NAMES.get(context, context)


def _started(error: MarkedYAMLError, text: str) -> tuple[Position, str] | None:
    """For a construct left open until the end of the file (an unclosed quote or bracket), the
    place it started and what is missing: the end of the file says nothing useful."""
    mark, context = error.context_mark, error.context
    problem_mark = error.problem_mark
    if mark is None or not context or problem_mark is None:
        return None
    if text[problem_mark.index:].strip():  # the problem is not at the end: its own place
        return None
    what = _construct(str(context))
    if what == "quoted text":
        message = "this quoted text is never closed (no closing quote before the end of file)"
    else:
        message = f"this {what} is never closed before the end of the file"
    return (mark.line + 1, mark.column + 1), message


def ambiguous_key(text: str, index: int, key: str) -> str | None:
    """Why the flow-mapping key `key` starting at `index` of `text` is ambiguous, or None.

    `[?x]`, `{?x: 1}`: ruamel and libyaml read `x` as a key; YAML 1.2 (and so editors) read the
    text "?x". Refused rather than read differently from what the author sees.
    """
    if index == 0 or text[index - 1] != "?":
        return None
    return (
        f"'?{key}' inside [...] or {{...}} reads as a mapping key here but as the text "
        f"'?{key}' in YAML 1.2 editors: quote it, or write '? {key}'"
    )
