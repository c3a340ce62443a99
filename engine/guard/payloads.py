"""Checking a handoff payload against the target agent's `accepts.payload_schema`.

The one call the runtime makes before it creates a handoff record; it never creates records.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from engine.errors import HandoffViolation
from engine.guard.contracts import LISTED_VIOLATIONS, Contract, as_contract


def check_handoff_payload(
    payload: Any, schema: Mapping[str, Any] | None, *, target: str, source: str | None = None
) -> Any:
    """Return `payload` when it satisfies `schema` (no schema: anything goes), else raise a
    `HandoffViolation` naming the target as node, the sender as upstream node, and the field.
    Failing fields are listed in the violation's message (`LISTED_VIOLATIONS` at most, then
    "and more")."""
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
        others = [f"{v.field_path}: {v.expected}" for v in violations[1:LISTED_VIOLATIONS]]
        if len(violations) > LISTED_VIOLATIONS:
            others.append("and more")
        first = dataclasses.replace(first, expected=f"{first.expected} (also: {'; '.join(others)})")
    return HandoffViolation(first, [])
