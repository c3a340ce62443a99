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
    from engine.runtime.handoff import HandoffOutcome
    from engine.runtime.reload import ReloadResult

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
    def of(
        cls, outcome: HandoffOutcome, *, session_id: str | None, duration_s: float,
        tool_call_id: object = None,
    ) -> HandoffFacts:
        decision, record = outcome.decision, outcome.record
        kind = _outcome(outcome)
        refused = kind == "refused"
        response = record.response
        layer, examples = decision.layer, decision.examples
        return cls._make((  # positional, in field order: keywords cost several times more
            decision.request.sender,  # sender
            kind,  # outcome
            duration_s,
            record.request.to_agent or None,  # target
            None if layer is None else layer.value,  # layer
            decision.rule,
            outcome.reason if refused else None,  # reason
            response.reason if refused and response is not None else None,  # refusal
            decision.request.tool,  # tool
            session_id,
            record.record_id,
            decision.config_version,
            len(decision.matched_keywords),  # keywords
            0 if examples is None else len(examples.nearest),  # examples
            None,  # error
            _short(tool_call_id),
        ))

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
        return cls(sender=_short(sender) or "?", outcome="error", duration_s=duration_s,
                   tool=_short(tool), session_id=session_id, error=type(error).__name__,
                   tool_call_id=_short(tool_call_id))


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

    @classmethod
    def of(cls, result: ReloadResult, *, config: str, redactor: Redactor) -> ReloadFacts:
        return cls(
            outcome=result.outcome,
            config=config,
            version=result.version,
            previous_version=result.previous_version,
            duration_s=result.duration_s,
            issue_count=len(result.issues),
            issues=tuple(redacted_issue(i, redactor) for i in result.issues[:MAX_ISSUES]),
        )


def _outcome(outcome: HandoffOutcome) -> str:
    if outcome.target is not None:
        return "routed"
    if outcome.reason == "no_route" and outcome.decision.request.tool is None:
        return "stayed"
    return "refused"


def _short(value: object) -> str | None:
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
