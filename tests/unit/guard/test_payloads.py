"""Handoff payloads checked against the target agent's payload_schema."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from engine.errors import HandoffViolation
from engine.guard import check_handoff_payload

SCHEMA = MappingProxyType({
    "type": "object",
    "required": ["account_id", "amount"],
    "properties": {"account_id": {"type": "string", "pattern": "^acc-"},
                   "amount": {"type": "number", "minimum": 0}},
})


def test_valid_payload_and_missing_schema_pass() -> None:
    payload = {"account_id": "acc-1", "amount": 3}
    assert check_handoff_payload(payload, SCHEMA, target="billing") is payload
    assert check_handoff_payload("anything", None, target="billing") == "anything"


def test_violation_names_target_sender_field_and_every_problem() -> None:
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload({"account_id": "x", "amount": -1}, SCHEMA, target="billing",
                              source="triage")
    context = caught.value.context
    assert (context.node_name, context.upstream_node) == ("billing", "triage")
    assert context.contract_type == "input" and context.field_path == "account_id"
    assert context.suggestion == "'account_id' does not match the required pattern"
    assert "also: amount" in context.expected
    assert "Upstream: triage" in str(caught.value)


@pytest.mark.parametrize("payload", ["text", 3, None, []])
def test_non_object_payloads_are_root_violations(payload: object) -> None:
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload(payload, SCHEMA, target="billing")
    assert caught.value.field_path == "<root>"


def test_read_only_payloads_count_as_objects_and_arrays() -> None:
    schema = {"type": "object", "properties": {"tags": {"type": "array", "minItems": 1}}}
    frozen = MappingProxyType({"tags": ("a",)})
    assert check_handoff_payload(frozen, schema, target="t") is frozen
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload(MappingProxyType({"tags": ()}), schema, target="t")
    assert caught.value.field_path == "tags"
