"""Handoff payloads checked against the target agent's payload_schema."""

from __future__ import annotations

import json
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


AMOUNT = {"type": "object", "properties": {"amount": {"type": "number", "maximum": 100}},
          "additionalProperties": {"type": "string"}}


def _refusal(payload: object) -> str:
    """What the violation for `payload` against AMOUNT expects (no other outcome passes)."""
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload(payload, AMOUNT, target="billing", source="triage")
    assert caught.value.context.upstream_node == "triage"
    return str(caught.value.context.expected)


def _nested(levels: int) -> str:
    """JSON text of an object nested `levels` deep inside the payload's `x`."""
    return '{"x": ' + '{"a":' * (levels - 1) + "1" + "}" * (levels - 1) + "}"


def test_payload_nested_past_the_depth_limit_is_a_violation_not_a_crash() -> None:
    deepest = json.loads(_nested(99))  # 100 levels: the root and 99 below it
    assert check_handoff_payload(deepest, {"type": "object"}, target="billing") is deepest
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload(json.loads(_nested(350)), AMOUNT, target="billing")
    assert caught.value.context.expected == "nested deeper than 100 levels"
    assert caught.value.field_path == "x" + ".a" * 99  # the first container past the limit


@pytest.mark.parametrize(("key", "shown"), [((1, 2), "(1, 2)"), (1, "1"), (None, "None")])
def test_keys_that_are_not_text_are_violations(key: object, shown: str) -> None:
    assert _refusal({"x": {key: "y"}}) == f"key {shown} is not a string: JSON object keys are text"


@pytest.mark.parametrize("amount", [float("nan"), float("inf"), float("-inf")])
def test_numbers_json_cannot_carry_are_violations(amount: float) -> None:
    assert _refusal({"amount": amount}) == (
        f"{amount!r} is not a finite number: JSON data cannot carry NaN or infinity")


def test_an_integer_too_long_to_print_is_quoted_by_its_size() -> None:
    assert _refusal({"x": 10**5000}) == "<integer of 16610 bits> is not of type 'string'"
