"""The retry proxy, its records, and mock_retry."""

from __future__ import annotations

import json

from engine.guard import AttemptRecord, Diagnostic, RetryState, mock_retry, retry


def test_proxy_has_safe_defaults_outside_a_guard() -> None:
    assert retry.get() is None
    assert (retry.attempt, retry.max_attempts, retry.remaining) == (1, 1, 0)
    assert not retry.is_retry and retry.is_final_attempt
    assert retry.feedback() is None and retry.last_error is None and retry.history == []


def test_mock_retry_sets_and_restores_state() -> None:
    with mock_retry(attempt=2, max_attempts=4, feedback_text="score missing") as state:
        assert retry.get() is state
        assert (retry.attempt, retry.remaining, retry.is_retry) == (2, 2, True)
        assert not retry.is_final_attempt
        feedback = retry.feedback()
        assert feedback is not None and "score missing" in feedback
        assert retry.last_error == Diagnostic(cause="validation", message="score missing")
    assert retry.get() is None


def test_feedback_renders_every_part_and_respects_max_chars() -> None:
    diagnostic = Diagnostic(
        cause="validation", message="Output validation failed", errors=["a: bad", "b: bad"],
        raw_output="x" * 900, field_path="a", suggestion="Fix 'a'",
    )
    assert diagnostic.raw_output == "x" * 500
    text = RetryState(2, 3, diagnostic).feedback()
    assert text is not None
    for part in ("(validation)", "- a: bad", "- b: bad", "Field: a", "Suggestion: Fix 'a'"):
        assert part in text
    assert len(RetryState(2, 3, diagnostic).feedback(max_chars=40) or "") == 40


def test_history_is_a_copy_and_records_serialise() -> None:
    record = AttemptRecord(1, diagnostic=Diagnostic(cause="parse", message="m"), duration_ms=2.0)
    with mock_retry() as state:
        assert state.history == ()
        retry.history.append(record)
        assert retry.history == []
    assert json.loads(json.dumps(record.to_dict()))["diagnostic"]["cause"] == "parse"
