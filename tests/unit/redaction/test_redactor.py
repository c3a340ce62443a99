"""The redaction policy: built-in key words and config globs (linear time), at any depth,
case-insensitive; records and requests redacted whole."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import UsageError
from engine.redaction import REDACTED, Redactor

SECRET_KEYS = ["password", "Password", "user_password", "passwd", "API_KEY", "x-api-key",
               "apiKey", "access_token", "accessToken", "token", "client_secret", "Secret",
               "private_key", "credentials", "Authorization", "proxy-authorization",
               "cookie", "Set-Cookie", "pin", "cvv", "card_number", "ssn", "otp"]
PLAIN_KEYS = ["customer_id", "card_last4", "max_tokens", "token_count", "reason", "name",
              "pin_hint", "author", "caller_verified"]


@pytest.mark.parametrize("key", SECRET_KEYS)
def test_default_patterns_catch_common_secret_keys(key: str) -> None:
    assert Redactor().matches(key)


@pytest.mark.parametrize("key", PLAIN_KEYS)
def test_default_patterns_leave_ordinary_keys_alone(key: str) -> None:
    assert not Redactor().matches(key)


def test_values_of_matching_keys_are_replaced_at_any_depth() -> None:
    data = {
        "customer_id": "C-1",
        "http": {"headers": [{"Authorization": "Bearer abc"}, {"accept": "json"}]},
        "password": {"nested": "whole value goes"},
        "items": [[{"api_key": 7}]],
    }
    assert Redactor().redact(data) == {
        "customer_id": "C-1",
        "http": {"headers": [{"Authorization": REDACTED}, {"accept": "json"}]},
        "password": REDACTED,
        "items": [[{"api_key": REDACTED}]],
    }
    assert data["password"] == {"nested": "whole value goes"}  # the input is not changed


def test_nothing_to_redact_returns_the_same_object() -> None:
    data: dict[str, Any] = {"customer_id": "C-1", "items": [{"a": 1}]}
    assert Redactor().redact(data) is data


@pytest.mark.parametrize(
    ("pattern", "hits", "misses"),
    [
        ("customer_id", ["customer_id", "Customer-ID"], ["customer_id2", "my_customer_id"]),
        ("session*", ["session", "session_key"], ["my_session"]),
        ("*_iban", ["payer_iban"], ["iban", "iban_country"]),
        ("*dob*", ["dob", "caller_dob_text"], ["d_o_b"]),
    ],
)
def test_pattern_forms(pattern: str, hits: list[str], misses: list[str]) -> None:
    redactor = Redactor([pattern], defaults=False)
    assert all(redactor.matches(key) for key in hits)
    assert not any(redactor.matches(key) for key in misses)


@pytest.mark.parametrize("pattern", ["(a+)+$", "a*b", "*", "**", "", "token\n", "a b", "[ab]",
                                     "pass?word"])
def test_patterns_are_plain_globs_never_regular_expressions(pattern: str) -> None:
    with pytest.raises(UsageError, match="redact key pattern"):
        Redactor([pattern])


def test_matching_cost_does_not_explode_on_hostile_keys() -> None:
    redactor = Redactor(["*aaaaaaaaaaaaaaaaaaaaaaaaaab*"])
    key = "a" * 100_000  # a backtracking matcher would take forever on this
    assert not redactor.matches(key)


def test_secret_values_are_scrubbed_from_messages() -> None:
    redactor = Redactor()
    data = {"pin": "9876", "login": {"password": ["hunter2", 12345]}, "name": "Ann"}
    text = "'9876' is not of type 'integer'; hunter2 and 12345 leaked; Ann stays"
    assert redactor.scrub(text, data) == (
        f"{REDACTED} is not of type 'integer'; {REDACTED} and {REDACTED} leaked; Ann stays"
    )


def test_the_defaults_can_be_replaced_by_config_patterns() -> None:
    assert Redactor([], defaults=False).redact({"password": "x"}) == {"password": "x"}
    assert Redactor(["customer_id"], defaults=False).matches("customer_id")
    assert Redactor(["customer_id"]).matches("password")  # added to the defaults


def test_a_record_the_manager_built_can_be_redacted_again() -> None:
    """Records a manager keeps in memory are built on its fast path; a later, stricter policy
    (a reload that adds a key, or a reader applying its own) must still redact them."""
    from engine.lifecycle import HandoffManager, HandoffRequest

    manager = HandoffManager(redactor=Redactor())
    record = manager.create_handoff(HandoffRequest(
        from_agent="a", to_agent="b", task_description="t", context={"customer_id": "C-1"}))
    manager.accept(record.record_id)
    moved = manager.complete(record.record_id, {"customer_id": "C-1", "ok": True})
    redacted = Redactor(["customer_id"]).record(moved)
    assert redacted.request.context == {"customer_id": REDACTED}
    assert redacted.result == {"customer_id": REDACTED, "ok": True}
    assert redacted.history == moved.history and redacted.version == moved.version
    assert moved.request.context == {"customer_id": "C-1"}  # the original is untouched
    manager.redactor = Redactor(["customer_id"])
    assert manager.export()[0]["request"]["context"] == {"customer_id": REDACTED}
