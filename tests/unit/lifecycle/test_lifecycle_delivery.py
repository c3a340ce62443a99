"""For any payload, the records a manager returns carry it as given while the store holds
exactly the redacted copy, and events-bound copies (`stored_form`) are that stored copy."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.redaction import DEFAULT_REDACTOR

KEYS = st.sampled_from(["pin", "otp", "card_number", "accessToken", "note", "customer_id",
                        "new_pin", "pin_hint", "amount"])
VALUES = st.one_of(st.text(max_size=20), st.integers(-(2**63), 2**63 - 1), st.booleans(),
                   st.none())
"""JSON data every store keeps (integers within 64 bits)."""
PAYLOADS = st.dictionaries(KEYS, st.one_of(VALUES, st.dictionaries(KEYS, VALUES, max_size=3)),
                           max_size=6)


@settings(max_examples=150, deadline=None)
@given(context=PAYLOADS, result=PAYLOADS)
def test_the_receiver_gets_the_payload_the_store_the_redacted_copy(
    context: dict[str, Any], result: dict[str, Any]
) -> None:
    manager = HandoffManager()
    created = manager.create_handoff(
        HandoffRequest(from_agent="a", to_agent="b", task_description="t", context=context))
    record_id = created.record_id
    assert created.request.context == context == manager.get(record_id).request.context
    stored = manager.store.get(record_id)
    assert stored.request.context == DEFAULT_REDACTOR.redact(context)
    assert manager.stored_form(created) == stored
    manager.accept(record_id)
    done = manager.complete(record_id, result)
    assert done.result == result == manager.get(record_id).result
    assert manager.store.get(record_id).result == DEFAULT_REDACTOR.redact(result)
    assert manager.stored_form(done) == manager.store.get(record_id)
