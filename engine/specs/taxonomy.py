"""Engine errors expressed as `agent_error_taxonomy_v1` instances (`AgentError`), and the
engine's own codes as a taxonomy catalogue (`engine_taxonomy()`).

A table from error class (and routing reason) to a stable code; the category follows from the
code's hundreds digit. Only classifies errors: never raises, logs or retries them (a value that
is not an exception is refused with `UsageError`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from functools import cache

from engine import errors
from engine.specs.models.enums import RetryStrategy, SeverityLevel
from engine.specs.models.error_taxonomy import (
    AgentError,
    AgentErrorTaxonomy,
    TaxonomyCategory,
    TaxonomyErrorEntry,
    category_for,
)

TAXONOMY_VERSION = "1.0.0"
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


CATALOGUE: tuple[tuple[int, str, str], ...] = (
    (101, "PARSE_FAILED", "Model output holds no JSON that can be recovered."),
    (301, "CONTRACT_VIOLATED", "Data crossing an agent boundary broke its schema (a guarded "
          "output, or a handoff payload the target's payload_schema refuses)."),
    (302, "SCHEMA_VALIDATION_FAILED", "A document does not validate against a canonical schema."),
    (303, "SCHEMA_NOT_FOUND", "No bundled canonical schema has the requested name."),
    (304, "SCHEMA_PARSE_FAILED", "A bundled schema file cannot be parsed."),
    (401, "PEER_NOT_ALLOWED", "The sender's peers, or the target's accepts.from, forbid this "
          "handoff."),
    (501, "STORE_FAILED", "The handoff store cannot be opened or used."),
    (502, "TIMED_OUT", "A handoff or call ran past its timeout or deadline."),
    (503, "OUT_OF_MEMORY", "The runtime ran out of memory."),
    (600, "HANDOFF_REFUSED", "A handoff was refused for a reason without a code of its own."),
    (601, "HANDOFF_LOOP", "The loop guard refused the handoff (too many hops or bounces)."),
    (602, "TARGET_DISABLED", "The target agent is disabled."),
    (603, "UNKNOWN_TARGET", "The target is not a declared agent."),
    (604, "SELF_HANDOFF", "An agent tried to hand off to itself."),
    (605, "NO_ROUTE", "No agent can take the handoff under the rules and policy."),
    (606, "MULTIPLE_HANDOFFS", "Several handoffs in one turn under multiple_handoffs: reject."),
    (607, "HANDOFF_CANCELLED", "A live handoff was cancelled."),
    (608, "HANDOFF_FAILED", "The target failed a handoff it had accepted."),
    (610, "ILLEGAL_TRANSITION", "A lifecycle move its record's state does not allow."),
    (611, "RECORD_NOT_FOUND", "No handoff record has this id."),
    (612, "VERSION_CONFLICT", "Another writer moved the record first."),
    (613, "RECORD_IMPORT_FAILED", "An exported record cannot be imported."),
    (620, "CONFIG_INVALID", "The config set failed to load."),
    (621, "USAGE_ERROR", "An API or CLI argument is wrong."),
    (630, "LISTENER_REJECTED", "A pump listener breaks the handler contract."),
    (699, "UNCLASSIFIED", "An error the engine has no code for."),
)
"""Every code the engine emits: (code, name, description)."""

CATEGORY_DESCRIPTIONS = {
    1: "Planning: the model's output could not be used.",
    3: "Context: data broke its schema, or a schema could not be used.",
    4: "Security: policy forbids the handoff.",
    5: "Resource: stores, time and memory.",
    6: "Orchestration: routing, handoff lifecycle, config and listeners.",
}


def _recoverable(code: int) -> bool:
    classes = [recoverable for _cls, known, recoverable in CODE_BY_CLASS if known == code]
    failures = [recoverable for known, recoverable in CODE_BY_FAILURE.values() if known == code]
    reasons = [reason in RECOVERABLE_ROUTING_REASONS
               for reason, known in CODE_BY_ROUTING_REASON.items() if known == code]
    return any(classes + failures + reasons)


@cache
def engine_taxonomy() -> AgentErrorTaxonomy:
    """The engine's codes as an `agent_error_taxonomy_v1` catalogue (one category per
    hundreds digit in use), so the codes `to_agent_error` emits are documented data."""
    categories = []
    for prefix, description in CATEGORY_DESCRIPTIONS.items():
        entries = [_entry(code, name, text) for code, name, text in CATALOGUE
                   if code // 100 == prefix]
        categories.append(TaxonomyCategory(
            category_name=category_for(prefix * 100).value, code_prefix=prefix,
            description=description, errors=entries))
    return AgentErrorTaxonomy(taxonomy_version=TAXONOMY_VERSION, categories=categories)


def _entry(code: int, name: str, description: str) -> TaxonomyErrorEntry:
    recoverable = _recoverable(code)
    return TaxonomyErrorEntry(
        code=code, name=name, description=description,
        severity=SeverityLevel.ERROR if recoverable else SeverityLevel.CRITICAL,
        recoverable=recoverable,
        retry_strategy=RetryStrategy.IMMEDIATE if recoverable else RetryStrategy.NONE)


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
    """Describe `error` as an `AgentError` that validates against agent_error_taxonomy_v1.

    Raises `UsageError` when `error` is not an exception: it has no class to classify."""
    if not isinstance(error, BaseException):
        raise errors.UsageError(
            f"to_agent_error needs an exception, not {type(error).__name__}")
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
