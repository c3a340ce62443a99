"""Printing located issues in the three report formats: text, json and github.

`text` is `file:line:col: severity[code] $.path: message` and a summary line (coloured when
the terminal says so); `json` is one document with every issue; `github` is one
workflow-annotation line per issue. Plug-ins are a name -> function dict.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.cli.terminal import Terminal
from engine.errors import UsageError
from engine.issues import Issue, Severity

FORMATS = ("text", "json", "github")
PLAIN = Terminal()


def path_argument(text: str) -> Path:
    """An argparse type for a path a command writes to: an empty one (which would mean the
    current folder) is refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; give a file or folder name")
    return Path(text)


def write_output(path: Path, content: str | bytes) -> None:
    """Write a command's `--output` file; a path it cannot write (a folder, a missing folder,
    a full disk) is a UsageError naming it and the reason."""
    try:
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from error


def plural(count: int, noun: str) -> str:
    """`1 set`, `2 sets`."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _painted(issue: Issue, terminal: Terminal) -> str:
    style = "red" if issue.is_error else "yellow"
    label = terminal.paint(f"{issue.severity.value}[{issue.code}]", style)
    path = f" {issue.json_path}:" if issue.json_path else ""
    return f"{terminal.paint(issue.location(), 'bold')}: {label}{path} {issue.message}"


def summary_line(issues: Sequence[Issue], scope: str | None, terminal: Terminal = PLAIN) -> str:
    """`SCOPE: ok` when there is nothing to report, else `SCOPE: N error(s), M warning(s)`
    (without a scope, the counts alone)."""
    errors = sum(issue.is_error for issue in issues)
    counts = f"{errors} error(s), {len(issues) - errors} warning(s)"
    if scope is None:
        return counts
    if not issues:
        return f"{scope}: {terminal.paint('ok', 'green')}"
    return f"{scope}: {terminal.paint(counts, 'red' if errors else 'yellow')}"


def _text(issues: Sequence[Issue], scope: str | None = None, terminal: Terminal = PLAIN) -> str:
    lines = [_painted(issue, terminal) for issue in issues]
    if not terminal.quiet:
        lines.append(summary_line(issues, scope, terminal))
    return "\n".join(lines)


def _json(issues: Sequence[Issue], scope: str | None = None, terminal: Terminal = PLAIN) -> str:
    errors = sum(issue.is_error for issue in issues)
    document = {
        "errors": errors,
        "warnings": len(issues) - errors,
        "issues": [issue.to_dict() for issue in issues],
    }
    return json.dumps(document, indent=2)


def _escape(value: str, *, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def annotation(level: str, message: str, *, file: str = "", line: int = 0, col: int = 0,
               title: str = "") -> str:
    """One GitHub Actions workflow command (`::error file=...,line=...::message`)."""
    props = [f"file={_escape(file, property_value=True)}"] if file else []
    if line > 0:
        props.append(f"line={line}")
    if col > 0:
        props.append(f"col={col}")
    if title:
        props.append(f"title={_escape(title, property_value=True)}")
    joined = f" {','.join(props)}" if props else ""
    return f"::{level}{joined}::{_escape(message)}"


def _github(issues: Sequence[Issue], scope: str | None = None, terminal: Terminal = PLAIN) -> str:
    lines = []
    for issue in issues:
        level = "error" if issue.severity is Severity.error else "warning"
        path = f"{issue.json_path}: " if issue.json_path else ""
        lines.append(annotation(level, path + issue.message, file=issue.file, line=issue.line,
                                col=issue.col, title=issue.code))
    return "\n".join(lines)


REPORTER_BY_NAME: dict[str, Callable[[Sequence[Issue], str | None, Terminal], str]] = {
    "text": _text,
    "json": _json,
    "github": _github,
}


def render_issues(issues: Sequence[Issue], fmt: str, *, scope: str | None = None,
                  terminal: Terminal = PLAIN) -> str:
    """Render issues in the named format (one of `FORMATS`); `scope` ("checked 2 sets, 14
    files") heads the text summary line, which `terminal.quiet` leaves out."""
    return REPORTER_BY_NAME[fmt](issues, scope, terminal)
