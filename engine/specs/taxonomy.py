"""Engine errors expressed as `agent_error_taxonomy_v1` instances (`AgentError`).

A table from error class (and routing reason) to a stable code; the category follows from the
code's hundreds digit. Only classifies errors: never raises, logs or retries them.
"""

from __future__ import annotations

from datetime import datetime, timezone

from engine import errors
from engine.specs.models.enums import SeverityLevel
from engine.specs.models.error_taxonomy import AgentError, category_for

MESSAGE_MAX = 1024
CAUSE_MAX = 2048
UNCLASSIFIED = 699

CODE_BY_CLASS: tuple[tuple[type[BaseException], int, bool], ...] = (
    # (class, code, recoverable): first match in this order wins (subclasses first)
    (errors.ParseError, 101, True),
    (errors.HandoffViolation, 301, True),
    (errors.SchemaValidationError, 302, False),
    (errors.SchemaNotFoundError, 303, False),
    (errors.SchemaParseError, 304, False),
    (errors.StoreError, 501, True),
    (TimeoutError, 502, True),
    (MemoryError, 503, False),
    (errors.IllegalTransition, 610, False),
    (errors.RecordNotFound, 611, False),
    (errors.VersionConflict, 612, True),
    (errors.RecordImportError, 613, False),
    (errors.ConfigError, 620, False),
    (errors.UsageError, 621, False),
    (errors.RegistrationError, 630, False),
)
"""Engine error classes and their taxonomy codes."""

CODE_BY_ROUTING_REASON: dict[str, int] = {
    "not_allowed": 401,
    "loop": 601,
    "disabled": 602,
    "unknown_target": 603,
    "self_handoff": 604,
    "no_route": 605,
    "multiple_handoffs": 606,
    "invalid_payload": 301,
}
"""`RoutingError.reason` (or a rejected record's reason code) -> code; a refused peer is a
security (4xx) matter, a payload that breaks the target's schema a context (3xx) one."""

RECOVERABLE_ROUTING_REASONS = frozenset({"loop", "no_route", "invalid_payload"})
"""Refusals that another attempt may get past (a fixed payload, a later turn)."""

CODE_BY_FAILURE: dict[str, tuple[int, bool]] = {
    "timeout": (502, True),
    "deadline": (502, True),
    "cancelled": (607, False),
    "error": (608, True),
}
"""`FailureReason` of a failed handoff record -> (code, recoverable)."""


def code_for(error: BaseException) -> tuple[int, bool]:
    """The taxonomy code of an error and whether retrying may help."""
    if isinstance(error, errors.RoutingError):
        reason = error.reason
        return CODE_BY_ROUTING_REASON.get(reason, 600), reason in RECOVERABLE_ROUTING_REASONS
    for cls, code, recoverable in CODE_BY_CLASS:
        if isinstance(error, cls):
            return code, recoverable
    return UNCLASSIFIED, False


def to_agent_error(
    error: BaseException,
    *,
    agent_id: str | None = None,
    run_id: str | None = None,
    step_index: int | None = None,
    at: datetime | None = None,
) -> AgentError:
    """Describe `error` as an `AgentError` that validates against agent_error_taxonomy_v1."""
    code, recoverable = code_for(error)
    cause = error.__cause__
    return agent_error(
        code,
        str(error).strip() or type(error).__name__,
        recoverable=recoverable,
        agent_id=agent_id,
        run_id=run_id,
        step_index=step_index,
        at=at,
        context={"error_type": type(error).__name__},
        cause=None if cause is None else f"{type(cause).__name__}: {cause}",
    )


def agent_error(
    code: int,
    message: str,
    *,
    recoverable: bool,
    agent_id: str | None = None,
    run_id: str | None = None,
    step_index: int | None = None,
    at: datetime | None = None,
    context: dict[str, str] | None = None,
    cause: str | None = None,
) -> AgentError:
    """An `AgentError` for a known code (category from its hundreds digit; severity `error`
    when recoverable, else `critical`; message and cause cut to the schema's limits)."""
    return AgentError(
        code=code,
        category=category_for(code),
        message=(message or str(code))[:MESSAGE_MAX],
        severity=SeverityLevel.ERROR if recoverable else SeverityLevel.CRITICAL,
        recoverable=recoverable,
        agent_id=agent_id,
        run_id=run_id,
        step_index=step_index,
        timestamp=at or datetime.now(timezone.utc),
        context=dict(context or {}),
        cause=None if cause is None else cause[:CAUSE_MAX],
    )
