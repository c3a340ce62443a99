"""Retry-with-feedback state (seed 004): `Diagnostic`, `AttemptRecord`, `RetryState` and the
`retry` proxy that reads the current attempt from a ContextVar. Holds no validation logic.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

RetryCause = Literal["validation", "parse"]

RAW_OUTPUT_MAX = 500
FEEDBACK_MAX_DEFAULT = 2000


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Why one attempt failed: the cause, a message, every error line, and a fix if known.

    `raw_output` is cut to 500 characters so feedback prompts stay bounded.
    """

    cause: RetryCause
    message: str
    errors: tuple[str, ...] = ()
    raw_output: str | None = None
    field_path: str | None = None
    suggestion: str | None = None

    def __post_init__(self) -> None:
        if self.raw_output is not None and len(self.raw_output) > RAW_OUTPUT_MAX:
            object.__setattr__(self, "raw_output", self.raw_output[:RAW_OUTPUT_MAX])
        object.__setattr__(self, "errors", tuple(self.errors))

    def to_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "message": self.message,
            "errors": list(self.errors),
            "field_path": self.field_path,
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One failed attempt: its number, when it ended, how long it took and why it failed."""

    attempt: int
    timestamp: datetime = field(default_factory=_now)
    diagnostic: Diagnostic | None = None
    duration_ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attempt": self.attempt,
            "timestamp": self.timestamp.isoformat(),
            "duration_ms": self.duration_ms,
            "diagnostic": self.diagnostic.to_dict() if self.diagnostic else None,
        }


def format_diagnostic(diagnostic: Diagnostic) -> str:
    """Render a diagnostic as feedback text an LLM can act on."""
    lines = [
        f"[Retry] Previous attempt failed ({diagnostic.cause}):",
        f"  Message: {diagnostic.message}",
    ]
    if diagnostic.errors:
        lines.append("  Errors:")
        lines.extend(f"    - {error}" for error in diagnostic.errors)
    if diagnostic.field_path:
        lines.append(f"  Field: {diagnostic.field_path}")
    if diagnostic.suggestion:
        lines.append(f"  Suggestion: {diagnostic.suggestion}")
    if diagnostic.raw_output:
        lines.append(f"  Raw output: {diagnostic.raw_output}")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class RetryState:
    """The attempt in progress, handed to a guarded function that has a `retry` parameter."""

    attempt: int = 1
    max_attempts: int = 1
    last_error: Diagnostic | None = None
    history: tuple[AttemptRecord, ...] = ()

    @property
    def remaining(self) -> int:
        return max(0, self.max_attempts - self.attempt)

    @property
    def is_retry(self) -> bool:
        return self.attempt > 1

    @property
    def is_final_attempt(self) -> bool:
        return self.attempt >= self.max_attempts

    def feedback(self, max_chars: int = FEEDBACK_MAX_DEFAULT) -> str | None:
        """The previous attempt's failure as prompt text, or None on a first attempt."""
        if self.last_error is None:
            return None
        return format_diagnostic(self.last_error)[:max_chars]


RETRY_STATE: ContextVar[RetryState | None] = ContextVar("handoff_retry_state", default=None)
"""The attempt in progress in this context; set only by the guard and `mock_retry`."""

_OUTSIDE = RetryState()


class RetryProxy:
    """Reads the current `RetryState` from the ContextVar, with safe defaults outside a guard
    (attempt 1 of 1, no feedback). One shared instance is exported as `retry`."""

    __slots__ = ()

    def get(self) -> RetryState | None:
        return RETRY_STATE.get()

    def _state(self) -> RetryState:
        return RETRY_STATE.get() or _OUTSIDE

    @property
    def attempt(self) -> int:
        return self._state().attempt

    @property
    def max_attempts(self) -> int:
        return self._state().max_attempts

    @property
    def remaining(self) -> int:
        return self._state().remaining

    @property
    def is_retry(self) -> bool:
        return self._state().is_retry

    @property
    def is_final_attempt(self) -> bool:
        return self._state().is_final_attempt

    @property
    def last_error(self) -> Diagnostic | None:
        return self._state().last_error

    @property
    def history(self) -> list[AttemptRecord]:
        return list(self._state().history)

    def feedback(self, max_chars: int = FEEDBACK_MAX_DEFAULT) -> str | None:
        return self._state().feedback(max_chars)


retry = RetryProxy()
