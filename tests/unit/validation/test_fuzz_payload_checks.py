"""Fuzz target: payload schema x payload, through the runtime's `check_payload`.

Whatever the schema (recursion, loops, fan-out, patterns, formats) and the payload: a schema
is compiled or refused with a UsageError, a check never raises, its counted work stays within
its budget, its refusal is capped in size, and its verdict is the pure validator's whenever it
finished within the budget. Bounded for CI: a fixed number of small examples.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from engine.errors import UsageError
from engine.guard.contracts import LISTED_VIOLATIONS, PATH_CHARS, as_contract
from engine.routing.snapshot import Snapshot
from engine.runtime.payloads import DETAIL_CHARS, check_payload
from engine.validation.bounded import MESSAGE_CHARS
from engine.validation.budget import MAX_UNITS, spending
from engine.validation.metaschema import schema_error
from engine.validation.validators import safe_validator
from tests.unit.runtime.conftest import snapshot_of
from tests.unit.validation.strategies import PAYLOADS, SCHEMAS

BUDGET_WORDS = "work budget"


def snapshot_with(schema: dict[str, Any]) -> Snapshot:
    return snapshot_of({"name": "a", "peers": ["*"]},
                       {"name": "b", "accepts": {"payload_schema": schema}}, entry="a")


@pytest.mark.slow
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(schema=SCHEMAS, payload=PAYLOADS)
def test_every_check_is_bounded_capped_and_agrees_with_the_pure_validator(
    schema: dict[str, Any], payload: Any
) -> None:
    assume(payload is not None and schema_error(schema) is None)  # None: no payload sent
    try:
        as_contract(schema)
    except UsageError:
        return  # a ref loop on one value (or a pattern RE2 refuses): never compiled
    snapshot = snapshot_with(schema)
    with spending(payload) as budget:
        refusal = check_payload(snapshot, sender="a", target="b", payload=payload)
    assert budget.limit <= MAX_UNITS and (budget.exceeded or budget.spent <= budget.limit)
    if refusal is None:
        assert safe_validator(schema).is_valid(payload)
        return
    context = refusal.violation.context
    assert len(refusal.detail) <= DETAIL_CHARS and len(context.field_path) <= PATH_CHARS
    assert len(context.expected) <= LISTED_VIOLATIONS * (PATH_CHARS + MESSAGE_CHARS + 4) + 20
    if BUDGET_WORDS not in context.expected:
        assert not safe_validator(schema).is_valid(payload)
