"""Syntax problems of the parse stage: a ruamel.yaml error -> one located issue, and text that
YAML parsers disagree on.

Names the forbidden character, the tab used for indentation, or ruamel's own problem text at
its line and column (`yaml-syntax`, `yaml-tab`); says why `[?x]`, a plain `<<` key or a
line break only YAML 1.1 readers see is ambiguous (`yaml-ambiguous`). It never parses.
"""

from __future__ import annotations

import re
from itertools import islice

from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

from engine.config.codes import issue
from engine.config.indentation import continued_value, misaligned_line
from engine.config.positions import Position
from engine.issues import Issue

_TAB_INDENT = re.compile(r"^[ ]*\t", re.MULTILINE)
_OLD_BREAKS = {"\x85": "NEXT LINE", "\u2028": "LINE SEPARATOR", "\u2029": "PARAGRAPH SEPARATOR"}
_OLD_BREAK = re.compile("[\x85\u2028\u2029]")
MAX_REPORTED = 20
"""Characters of one kind located per file; the last issue says how many more there are."""


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
        message = (f"line {line} is indented with a tab: YAML indents with spaces only "
                   "(replace the tab with spaces)")
        return issue(file, (line, col), "", "yaml-tab", message)
    problem = getattr(error, "problem", None) if isinstance(error, MarkedYAMLError) else None
    started = _started(error, text) if isinstance(error, MarkedYAMLError) else None
    if started is not None:
        return issue(file, started[0], "", "yaml-syntax", started[1])
    message = str(problem or error).strip()
    said = _indentation(text, message, position)
    if said is not None:
        return issue(file, position, "", "yaml-syntax", said)
    context = getattr(error, "context_mark", None)
    if problem is not None and context is not None and context.line != position[0] - 1:
        what = _construct(str(getattr(error, "context", "") or "a construct"))
        message += f" (in the {what} that starts at line {context.line + 1})"
    return issue(file, position, "", "yaml-syntax", message)


def _indentation(text: str, problem: str, position: Position) -> str | None:
    """The parser's words for an indentation mistake, said as the author would (or None)."""
    if problem.startswith("expected <block end>"):
        return misaligned_line(text, position[0])
    if problem == "mapping values are not allowed here":
        return continued_value(text, *position)
    return None


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


MERGE_KEY = "<<"
MERGE_KEY_MESSAGE = (
    "a plain '<<' key is a merge to YAML 1.1 readers (they copy the keys of the mapping it "
    "names into this one) but a key named '<<' in YAML 1.2, as read here: write the keys out, "
    "or quote it ('<<') for a key of that name"
)
"""Why a plain `<<` key is refused (a quoted one is a key like any other everywhere)."""


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


def hidden_breaks(text: str, file: str) -> list[Issue]:
    """`yaml-ambiguous` at each U+0085, U+2028 and U+2029 of `text` (at most `MAX_REPORTED`).

    YAML 1.1 readers (libyaml, ruamel, PyYAML) end a line there; YAML 1.2 and editors do not.
    So `# ok<U+2028>peers: ['*']` is a comment on screen but a key to the parser, and inside
    quotes the spaces around one are folded away. Refused raw wherever it is: the escape
    (`"\\u2028"`) means the same to every reader."""
    if text.isascii() or _OLD_BREAK.search(text) is None:
        return []
    issues = []
    for match in islice(_OLD_BREAK.finditer(text), MAX_REPORTED):
        char = match.group()
        message = (
            f"U+{ord(char):04X} {_OLD_BREAKS[char]} ends a line for YAML 1.1 readers but not "
            f"for YAML 1.2 or editors (text after it in a comment is read as YAML, and "
            f"spaces around it in a string are dropped): remove it, or write it as "
            f"\"\\u{ord(char):04x}\" in double quotes"
        )
        issues.append(issue(file, _offset_position(text, match.start()), "", "yaml-ambiguous",
                            message))
    more = sum(text.count(char) for char in _OLD_BREAKS) - len(issues)
    if more:
        last = issues[-1]
        issues[-1] = issue(last.file, (last.line, last.col), "", last.code,
                           f"{last.message} ({more} more in this file after this one)")
    return issues
