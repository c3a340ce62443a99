"""Boundary guard (seed 004): validate data crossing an agent boundary, retry with feedback.

Public surface: `guard`, `retry`, `parse_json`, `mock_retry`, the records, the errors.
"""

from engine.errors import HandoffViolation, ParseError
from engine.guard.core import ViolationContext
from engine.guard.decorator import GuardConfig, guard
from engine.guard.langgraph import guarded_node, validate_state
from engine.guard.parse import ParseResult, parse_json
from engine.guard.payloads import check_handoff_payload, payload_violation
from engine.guard.retry_state import AttemptRecord, Diagnostic, RetryProxy, RetryState, retry
from engine.guard.testing import mock_retry

__all__ = [
    "AttemptRecord",
    "Diagnostic",
    "GuardConfig",
    "HandoffViolation",
    "ParseError",
    "ParseResult",
    "RetryProxy",
    "RetryState",
    "ViolationContext",
    "check_handoff_payload",
    "guard",
    "guarded_node",
    "mock_retry",
    "parse_json",
    "payload_violation",
    "retry",
    "validate_state",
]
