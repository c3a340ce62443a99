"""Checking a handoff payload against the target agent's `accepts.payload_schema`.

The one call the runtime makes before it creates a handoff record; it never creates records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.errors import HandoffViolation
from engine.guard.contracts import Contract, as_contract


def check_handoff_payload(
    payload: Any, schema: Mapping[str, Any] | None, *, target: str, source: str | None = None
) -> Any:
    """Return `payload` when it satisfies `schema` (no schema: anything goes), else raise a
    `HandoffViolation` naming the target as node, the sender as upstream node, and the field.
    Every failing field is listed in the violation's message."""
    if schema is None:
        return payload
    violation = payload_violation(as_contract(schema), payload, target=target, source=source)
    if violation is not None:
        raise violation
    return payload


def payload_violation(
    contract: Contract, payload: Any, *, target: str, source: str | None = None
) -> HandoffViolation | None:
    """The `HandoffViolation` `check_handoff_payload` would raise, or None for a valid payload.

    Takes an already compiled contract (`as_contract`), for callers that cache contracts.
    """
    _, violations = contract.check(payload, target, "input")
    if not violations:
        return None
    first = dataclasses.replace(violations[0], upstream_node=source)
    if len(violations) > 1:
        others = "; ".join(f"{v.field_path}: {v.expected}" for v in violations[1:])
        first = dataclasses.replace(first, expected=f"{first.expected} (also: {others})")
    return HandoffViolation(first, [])
