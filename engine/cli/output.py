"""Printing located issues in the three report formats: text, json and github.

`text` is `file:line:col: severity[code] $.path: message`; `json` is one document with every
issue; `github` is one workflow-annotation line per issue. Plug-ins are a name -> function dict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from engine.issues import Issue, Severity

FORMATS = ("text", "json", "github")


def _text(issues: Sequence[Issue]) -> str:
    errors = sum(issue.is_error for issue in issues)
    warnings = len(issues) - errors
    lines = [str(issue) for issue in issues]
    lines.append(f"{errors} error(s), {warnings} warning(s)")
    return "\n".join(lines)


def _json(issues: Sequence[Issue]) -> str:
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


def _github(issues: Sequence[Issue]) -> str:
    lines = []
    for issue in issues:
        level = "error" if issue.severity is Severity.error else "warning"
        props = [f"file={_escape(issue.file, property_value=True)}"]
        if issue.line > 0:
            props.append(f"line={issue.line}")
        if issue.col > 0:
            props.append(f"col={issue.col}")
        props.append(f"title={_escape(issue.code, property_value=True)}")
        path = f"{issue.json_path}: " if issue.json_path else ""
        lines.append(f"::{level} {','.join(props)}::{_escape(path + issue.message)}")
    return "\n".join(lines)


REPORTER_BY_NAME: dict[str, Callable[[Sequence[Issue]], str]] = {
    "text": _text,
    "json": _json,
    "github": _github,
}


def render_issues(issues: Sequence[Issue], fmt: str) -> str:
    """Render issues in the named format (one of `FORMATS`)."""
    return REPORTER_BY_NAME[fmt](issues)
