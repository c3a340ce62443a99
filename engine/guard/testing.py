"""`mock_retry()` (seed 004): set a retry state for tests of code that reads `retry`.

Test support only; the guard never calls this.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from engine.guard.retry_state import RETRY_STATE, Diagnostic, RetryState


@contextmanager
def mock_retry(
    attempt: int = 2,
    max_attempts: int = 3,
    last_error: Diagnostic | None = None,
    feedback_text: str | None = None,
) -> Iterator[RetryState]:
    """Within the block, `retry` reports this attempt; `feedback_text` without `last_error`
    becomes a validation `Diagnostic` with that message."""
    if feedback_text and last_error is None:
        last_error = Diagnostic(cause="validation", message=feedback_text)
    state = RetryState(attempt=attempt, max_attempts=max_attempts, last_error=last_error)
    token = RETRY_STATE.set(state)
    try:
        yield state
    finally:
        RETRY_STATE.reset(token)
