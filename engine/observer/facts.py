"""What observers are told about one handoff and one reload: frozen records built once per event,
with anything that comes from callers or config files already redacted. Pure: it imports no
telemetry library and does no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.redaction import REDACTED, Redactor

if TYPE_CHECKING:
    from engine.issues import Issue

MAX_ISSUES = 20
"""A rejected reload reports at most this many issues to observers (all are counted)."""

_SHORT = 200
_PATH_KEY = re.compile(r"\.([A-Za-z_][A-Za-z0-9_\-]*)|\[(['\"])(.*?)\2\]")


class HandoffFacts(NamedTuple):
    """One `Engine.handoff` call (a NamedTuple: built on every observed handoff, and several
    times cheaper to build than a frozen dataclass). `outcome` is `routed`, `stayed` (no tool
    was called and the caller's words routed nowhere: the caller stays where they are, which
    is not a refusal), `refused` or `error` (it raised); `target` the agent it went to or,
    when refused, the one it was addressed to; `reason` the typed refusal reason and `refusal`
    the refusal as stored in the record (redacted); `tool_call_id` the model's call id.
    `keywords` counts matched keywords, `examples` the nearest examples the examples layer saw.
    Never holds the caller's text, context or payload."""

    sender: str
    outcome: str
    duration_s: float
    target: str | None = None
    layer: str | None = None
    rule: str | None = None
    reason: str | None = None
    refusal: str | None = None
    tool: str | None = None
    session_id: str | None = None
    record_id: str | None = None
    config_version: str | None = None
    keywords: int = 0
    examples: int = 0
    error: str | None = None
    tool_call_id: str | None = None

    @classmethod
    def failed(
        cls,
        sender: object,
        error: BaseException,
        *,
        session_id: str | None,
        tool: object,
        duration_s: float,
        tool_call_id: object = None,
    ) -> HandoffFacts:
        """A handoff that raised (a store failure, say) instead of returning an outcome. The
        sender, tool and call id are the caller's, unchecked: kept only as short strings."""
        return cls(sender=short_or_none(sender) or "?", outcome="error", duration_s=duration_s,
                   tool=short_or_none(tool), session_id=session_id, error=type(error).__name__,
                   tool_call_id=short_or_none(tool_call_id))


@dataclass(frozen=True, slots=True)
class ReloadFacts:
    """One reload that changed something: `outcome` is `applied` or `rejected`; `version` is
    the version serving afterwards. `issues` holds the first `MAX_ISSUES` issues as dicts,
    with the message of any issue located under a secret-looking key redacted."""

    outcome: str
    config: str
    version: str
    previous_version: str
    duration_s: float
    issue_count: int = 0
    issues: tuple[dict[str, Any], ...] = ()


def short_or_none(value: object) -> str | None:
    """`value` when it is a string of at most 200 characters (a caller's id), else None."""
    return value if isinstance(value, str) and len(value) <= _SHORT else None


def redacted_issue(issue: Issue, redactor: Redactor) -> dict[str, Any]:
    """`issue` as a dict; its message (which may quote the value) hidden when a key on its
    JSON path matches the redaction policy."""
    found = issue.to_dict()
    for plain, _, quoted in _PATH_KEY.findall(issue.json_path):
        if redactor.matches(plain or quoted):
            found["message"] = REDACTED
            break
    return found
