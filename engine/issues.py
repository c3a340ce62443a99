"""Located problems found in a document: the one shape every validator reports in.

An `Issue` names where (file, line, column, JSON path) and what (a stable code, a message,
a severity). Producers collect issues; they never print or raise one at a time.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    """How bad an issue is: errors block loading, warnings only fail `--strict`."""

    error = "error"
    warning = "warning"


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem at one place. `line` and `col` are 1-based; 0 means "unknown"."""

    file: str
    line: int
    col: int
    json_path: str
    code: str
    message: str
    severity: Severity = Severity.error

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.error

    def location(self) -> str:
        """`file:line:col`, leaving out the parts that are unknown."""
        if self.line <= 0:
            return self.file
        if self.col <= 0:
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.col}"

    def __str__(self) -> str:
        path = f" {self.json_path}:" if self.json_path else ""
        return f"{self.location()}: {self.severity.value}[{self.code}]{path} {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "json_path": self.json_path,
            "code": self.code,
            "message": self.message,
            "severity": self.severity.value,
        }


def sort_key(issue: Issue) -> tuple[str, int, int, str]:
    """Report order: by file, then position, then code."""
    return (issue.file, issue.line, issue.col, issue.code)


def has_errors(issues: list[Issue] | tuple[Issue, ...]) -> bool:
    return any(issue.is_error for issue in issues)
