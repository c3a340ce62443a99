"""Handoff payloads checked against the target agent's payload_schema before any record."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import HandoffViolation
from engine.guard import check_handoff_payload
from engine.guard.contracts import thaw
from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot
from engine.runtime.payloads import (
    INVALID_PAYLOAD,
    PayloadRefusal,
    check_payload,
    contract_cache_size,
)
from engine.specs import to_agent_error
from tests.unit.runtime.conftest import snapshot_of

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
_LOADED = load_config(BANKING)
_FRAUD_SCHEMA = jsonschema.Draft202012Validator(
    thaw(_LOADED.agents["fraud_agent"].accepts.payload_schema)
)


@pytest.fixture(scope="module")
def real_banking() -> Snapshot:
    return _LOADED


def test_valid_payload_passes(banking: Snapshot) -> None:
    assert check_payload(banking, sender="concierge", target="fraud_agent",
                         payload={"card_last4": "1234"}) is None


@pytest.mark.parametrize(
    ("target", "payload"),
    [("claims", {"anything": 1}), ("claims", "free text"), (None, {}), ("nobody", {}),
     ("fraud_agent", None)],
    ids=["no-schema", "no-schema-non-object", "no-target", "unknown-target", "no-payload"],
)
def test_nothing_to_check_is_no_refusal(banking: Snapshot, target: str | None,
                                        payload: Any) -> None:
    assert check_payload(banking, sender="concierge", target=target, payload=payload) is None


def test_missing_field_is_a_typed_refusal_naming_target_sender_field_and_fix(
    banking: Snapshot,
) -> None:
    refusal = check_payload(banking, sender="concierge", target="fraud_agent", payload={})
    assert isinstance(refusal, PayloadRefusal)
    assert (refusal.reason, refusal.sender, refusal.target) == (
        INVALID_PAYLOAD, "concierge", "fraud_agent")
    violation = refusal.violation
    assert isinstance(violation, HandoffViolation)
    assert (violation.node_name, violation.context.upstream_node) == ("fraud_agent", "concierge")
    assert violation.context.contract_type == "input"
    assert refusal.field_path == "card_last4"
    assert refusal.suggestion == "Add 'card_last4' to the input data"
    assert refusal.response_reason == (
        "invalid_payload: payload from 'concierge' to 'fraud_agent' breaks its schema at "
        "card_last4: 'card_last4' is a required property; "
        "suggestion: Add 'card_last4' to the input data"
    )


@pytest.mark.parametrize("payload", ["text", 3, [], True])
def test_non_object_payload_is_refused_at_the_root(banking: Snapshot, payload: Any) -> None:
    refusal = check_payload(banking, sender="concierge", target="fraud_agent", payload=payload)
    assert refusal is not None and refusal.field_path == "<root>"
    assert "is not of type 'object'" in refusal.detail


def test_read_only_payload_counts_as_an_object(banking: Snapshot) -> None:
    payload = MappingProxyType({"card_last4": "9876"})
    assert check_payload(banking, sender="concierge", target="fraud_agent",
                         payload=payload) is None


@pytest.mark.parametrize(
    ("payload", "field", "expected"),
    [
        ({}, "reason", "'reason' is a required property"),
        ({"reason": "no"}, "reason", "'no' is too short"),
        ({"reason": "stolen", "card_last4": "12a4"}, "card_last4", "does not match"),
        ({"reason": "stolen", "suspected_amount": -5}, "suspected_amount",
         "less than the minimum of 0"),
        ({"reason": "stolen", "suspected_amount": "5"}, "suspected_amount",
         "'5' is not of type 'number'"),
        ({"reason": "stolen", "pin": "0000"}, "<root>", "'pin' was unexpected"),
    ],
    ids=["missing", "too-short", "pattern", "minimum", "type", "extra-field"],
)
def test_banking_fraud_agent_schema(real_banking: Snapshot, payload: dict[str, Any],
                                    field: str, expected: str) -> None:
    refusal = check_payload(real_banking, sender="concierge", target="fraud_agent",
                            payload=payload)
    assert refusal is not None
    assert refusal.field_path == field and expected in refusal.violation.context.expected
    assert refusal.response_reason.startswith("invalid_payload: ")


def test_banking_valid_payload_and_agents_without_schema(real_banking: Snapshot) -> None:
    good = {"reason": "card stolen", "suspected_amount": 120.5, "card_last4": "4242"}
    assert check_payload(real_banking, sender="concierge", target="fraud_agent",
                         payload=good) is None
    for name, agent in real_banking.agents.items():
        if agent.accepts.payload_schema is None:
            assert check_payload(real_banking, sender="concierge", target=name,
                                 payload={"x": object()}) is None


def test_every_failing_field_is_listed(real_banking: Snapshot) -> None:
    refusal = check_payload(real_banking, sender="claims", target="fraud_agent",
                            payload={"reason": "x", "card_last4": "1"})
    assert refusal is not None
    expected = refusal.violation.context.expected
    assert "'1' does not match" in expected and "(also: reason: 'x' is too short)" in expected


def test_refusal_agrees_with_the_guard_and_serializes(real_banking: Snapshot) -> None:
    payload = {"reason": "stolen", "card_last4": "12"}
    refusal = check_payload(real_banking, sender="concierge", target="fraud_agent",
                            payload=payload)
    assert refusal is not None
    schema = real_banking.agents["fraud_agent"].accepts.payload_schema
    with pytest.raises(HandoffViolation) as caught:
        check_handoff_payload(payload, schema, target="fraud_agent", source="concierge")
    assert caught.value.field_path == refusal.field_path
    assert caught.value.context.expected == refusal.violation.context.expected
    data = json.loads(json.dumps(refusal.to_dict()))
    assert data["reason"] == "invalid_payload" and data["violation"]["node_name"] == "fraud_agent"
    error = to_agent_error(refusal.violation, agent_id="fraud_agent", run_id="r-1")
    assert (error.code, error.category.value, error.recoverable) == (301, "context", True)


def _fraud_snapshot(version: str) -> Snapshot:
    return snapshot_of(
        {"name": "concierge", "peers": ["*"]},
        {"name": "fraud_agent", "accepts": {"payload_schema": {
            "type": "object", "required": ["reason"],
            "properties": {"reason": {"type": "string"}}}}},
        version=version,
    )


def test_contract_cache_is_reused_and_does_not_grow_across_reloads() -> None:
    gc.collect()
    baseline = contract_cache_size()
    kept = _fraud_snapshot("kept")
    for _ in range(5):
        assert check_payload(kept, sender="concierge", target="fraud_agent",
                             payload={"reason": "r"}) is None
    assert contract_cache_size() == baseline + 1
    for index in range(50):  # fifty reloads: each snapshot is checked, then dropped
        snapshot = _fraud_snapshot(f"v{index}")
        assert check_payload(snapshot, sender="concierge", target="fraud_agent",
                             payload={}) is not None
        del snapshot
    gc.collect()
    assert contract_cache_size() == baseline + 1
    assert check_payload(kept, sender="concierge", target="fraud_agent", payload={}) is not None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                  max_size=3),
    max_leaves=8,
)
PAYLOADS = st.dictionaries(
    st.sampled_from(["reason", "suspected_amount", "card_last4", "other"]), JSON_VALUES,
    max_size=4,
) | JSON_VALUES


@settings(max_examples=150, deadline=None)
@given(payload=PAYLOADS)
def test_refused_exactly_when_jsonschema_says_invalid(payload: Any) -> None:
    if payload is None:
        return  # no payload sent: nothing to check (covered above)
    valid = _FRAUD_SCHEMA.is_valid(payload)
    refusal = check_payload(_LOADED, sender="concierge", target="fraud_agent", payload=payload)
    assert (refusal is None) is valid
