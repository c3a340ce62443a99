"""The one attempt loop behind every guarded call, sync or async alike.

`run_attempts` is a generator: it yields the keyword arguments for the next call and receives
the call's result (or `Raised`); the sync and async wrappers only drive it. Calling the
wrapped function is the drivers' job; deciding what an outcome means is this module's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import HandoffViolation, ParseError
from engine.guard.contracts import Contract
from engine.guard.core import ViolationContext
from engine.guard.retry_state import (
    RAW_OUTPUT_MAX,
    RETRY_STATE,
    AttemptRecord,
    Diagnostic,
    RetryState,
)
from engine.validation.shown import short_repr

OnFail = Literal["raise", "return_none", "return_input"] | Callable[[HandoffViolation], Any]
PARSE_ERRORS = (ParseError, json.JSONDecodeError)
RECEIVED_CHARS = 100
"""Longest quote of a failing value in a diagnostic's error line."""


class Raised:
    """An error: raised by the wrapped function (sent into the loop instead of a result),
    or to raise from the guarded call (the loop's final value)."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class Failed:
    """One attempt's failure: the violation, its diagnostic, and whether a retry may help."""

    __slots__ = ("context", "diagnostic", "retryable")

    def __init__(self, context: ViolationContext, diagnostic: Diagnostic, retryable: bool) -> None:
        self.context = context
        self.diagnostic = diagnostic
        self.retryable = retryable


class Hooked:
    """The final value came from an on_fail callable (an async node awaits it if needed)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a guarded call needs that does not change between calls."""

    node_name: str
    input_contract: Contract | None
    output_contract: Contract | None
    max_attempts: int
    retry_on: frozenset[str]
    on_fail: OnFail
    bind_input: Callable[[tuple[Any, ...], dict[str, Any]], Any]
    retry_position: int  # index of the function's `retry` parameter, -1 when it has none
    first_state: RetryState


Steps = Generator[dict[str, Any], Any, Any]
"""Yields call kwargs, receives a result or `Raised`, returns a value, `Raised` or `Hooked`."""


def run_attempts(plan: Plan, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Steps:
    """Validate input once, then call (via the driver) until the output passes or the
    attempts run out; finish with the value, a `Hooked` on_fail result or a `Raised`."""
    if plan.input_contract is not None:
        data = plan.bind_input(args, kwargs)
        _, violations = plan.input_contract.check(data, plan.node_name, "input")
        if violations:
            return _fail(plan, HandoffViolation(violations[0], []), args, kwargs)
    history: list[AttemptRecord] = []
    last: Diagnostic | None = None
    inject = len(args) <= plan.retry_position and "retry" not in kwargs  # -1: no parameter
    for attempt in range(1, plan.max_attempts + 1):
        state = (plan.first_state if attempt == 1
                 else RetryState(attempt, plan.max_attempts, last, tuple(history)))
        token = RETRY_STATE.set(state)
        started = time.perf_counter()
        try:
            outcome = yield ({**kwargs, "retry": state} if inject else kwargs)
        finally:
            RETRY_STATE.reset(token)
        judged = _judge(plan, outcome)
        if type(judged) is not Failed:
            return judged
        last = judged.diagnostic
        elapsed = (time.perf_counter() - started) * 1000
        history.append(AttemptRecord(attempt, diagnostic=last, duration_ms=elapsed))
        if not (judged.retryable and attempt < plan.max_attempts):
            return _fail(plan, HandoffViolation(judged.context, history), args, kwargs)
    raise AssertionError("unreachable: max_attempts is at least 1")


def _judge(plan: Plan, outcome: Any) -> Any:
    """Classify one call's outcome: the value (success), a `Raised` to re-raise, or a
    `Failed` attempt."""
    if isinstance(outcome, Raised):
        error = outcome.error
        if plan.max_attempts == 1 and isinstance(error, json.JSONDecodeError):
            return outcome  # nothing to retry: the function's own decode error, unchanged
        if "parse" in plan.retry_on and isinstance(error, PARSE_ERRORS):
            return _parse_failure(plan, error)
        return outcome
    if plan.output_contract is None:
        return outcome
    _, violations = plan.output_contract.check(outcome, plan.node_name, "output")
    if not violations:
        return outcome
    diagnostic = _validation_diagnostic(violations, outcome)
    return Failed(violations[0], diagnostic, "validation" in plan.retry_on)


def _parse_failure(plan: Plan, error: Exception) -> Failed:
    raw = getattr(error, "raw_output", None) or getattr(error, "preview", None) or None
    diagnostic = Diagnostic(cause="parse", message=str(error), raw_output=raw)
    context = ViolationContext(
        node_name=plan.node_name,
        contract_type="output",
        field_path="<parse>",
        expected="Valid parseable output",
        received=str(error),
        received_type=type(error).__name__,
        suggestion="Return valid JSON or structured data",
    )
    return Failed(context, diagnostic, True)


def _validation_diagnostic(violations: list[ViolationContext], result: Any) -> Diagnostic:
    """The diagnostic of an output that broke its contract. Values are quoted with
    `short_repr`: a plain `repr` of an integer of thousands of digits raises, of a deeply
    nested list recurses past the limit, and of a large value costs its whole size."""
    first = violations[0]
    return Diagnostic(
        cause="validation",
        message="Output validation failed",
        errors=tuple(
            f"{v.field_path}: expected {v.expected}, got {short_repr(v.received, RECEIVED_CHARS)}"
            for v in violations
        ),
        raw_output=None if result is None else short_repr(result, RAW_OUTPUT_MAX),
        field_path=first.field_path,
        suggestion=first.suggestion,
    )


def _fail(
    plan: Plan, violation: HandoffViolation, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """Apply the on_fail policy to a violation."""
    on_fail = plan.on_fail
    if on_fail == "return_none":
        return None
    if on_fail == "return_input":
        return plan.bind_input(args, kwargs)
    if callable(on_fail):
        return Hooked(on_fail(violation))
    return Raised(violation)
