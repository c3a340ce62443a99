"""LangGraph-style adapter (seed 004): `guarded_node` and `validate_state` for graph nodes
that take and return plain dict states. Needs no LangGraph install and imports none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.errors import HandoffViolation
from engine.guard.attempts import OnFail
from engine.guard.contracts import Schema, as_contract
from engine.guard.decorator import guard

F = TypeVar("F", bound=Callable[..., Any])


def guarded_node(
    input: Schema | None = None,
    output: Schema | None = None,
    *,
    node_name: str | None = None,
    max_attempts: int = 1,
    retry_on: tuple[str, ...] = ("validation", "parse"),
    on_fail: OnFail = "raise",
) -> Callable[[F], F]:
    """`@guard` for a graph node whose first parameter is the state dict."""
    return guard(input, output, node_name=node_name, max_attempts=max_attempts,
                 retry_on=retry_on, on_fail=on_fail)


def validate_state(state: Any, schema: Schema, node_name: str = "unknown") -> Any:
    """Check a state explicitly (e.g. before a checkpoint): the validated model for a
    pydantic schema, the state itself for a JSON Schema. Raises `HandoffViolation`."""
    validated, violations = as_contract(schema).check(state, node_name, "state")
    if violations:
        raise HandoffViolation(violations[0], [])
    return validated
