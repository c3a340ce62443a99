"""Values that look like secrets, whatever their key: card numbers (Luhn), Bearer tokens, JWTs
and PEM private keys are cut out of text and data; the rest of the text stays; linear time."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.redaction import REDACTED, Redactor
from tests.patience import HANG_S
from tests.sandbox import run_python

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLV9hYmM"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4W"
       "\nGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----")

HIDDEN = [
    ("my card is 4111 1111 1111 1111, please block it", "my card is [redacted], please block it"),
    ("4111-1111-1111-1111", REDACTED),
    ("card=4111111111111111;", "card=[redacted];"),
    ("mastercard 5500 0000 0000 0004 exp 12/27", "mastercard [redacted] exp 12/27"),
    ("amex 3782 822463 10005", "amex [redacted]"),
    ("4111111111111111 2027", "[redacted] 2027"),
    ("ref 12 4111 1111 1111 1111", "ref 12 [redacted]"),
    ("Authorization: Bearer abc.DEF-123_xyz~+/=", "Authorization: Bearer [redacted]"),
    ("curl -H 'authorization: bearer sk_live_51H8abcdef'", "curl -H 'authorization: bearer "
                                                          "[redacted]'"),
    (f"token {JWT} expired", "token [redacted] expired"),
    (f"key:\n{PEM}\nthanks", "key:\n[redacted]\nthanks"),
    ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg", REDACTED),  # cut off: hidden to the end
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----", REDACTED),
    ("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----",
     REDACTED),
]
KEPT = [
    "my card ends in 4421",
    "4111 1111 1111 1112",  # fails the Luhn check
    "411111111111",  # 12 digits
    "sent at 1732752000000 ms",  # a timestamp: cards never start with 1 (or 0, 7, 8, 9)
    "call +1 415 555 2671",
    "order 4111111111111111111111",  # a 22-digit number is not a card
    "the bearer of this letter",
    "bearer responsibilities",
    "eyJ alone is not a token",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYH\n-----END PUBLIC KEY-----",
    "lost my card yesterday",
]


@pytest.mark.parametrize(("text", "shown"), HIDDEN)
def test_secret_looking_values_are_cut_out_of_text(text: str, shown: str) -> None:
    assert Redactor().text(text) == shown


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_is_kept(text: str) -> None:
    assert Redactor().text(text) is text


def test_values_are_redacted_anywhere_in_data() -> None:
    data: dict[str, Any] = {
        "note": "card 4111 1111 1111 1111",
        "items": [{"memo": f"use {JWT}"}, "Bearer abcdefgh12345678"],
        "number": 4111111111111111,
        "count": 4111111111111112,
        "customer_id": "C-1",
    }
    assert Redactor().redact(data) == {
        "note": f"card {REDACTED}",
        "items": [{"memo": f"use {REDACTED}"}, f"Bearer {REDACTED}"],
        "number": REDACTED,
        "count": 4111111111111112,
        "customer_id": "C-1",
    }
    assert data["note"] == "card 4111 1111 1111 1111"  # the input is not changed


def test_values_can_be_switched_off() -> None:
    redactor = Redactor(values=False)
    data = {"note": "card 4111 1111 1111 1111", "password": "x"}
    assert redactor.redact(data) == {"note": "card 4111 1111 1111 1111", "password": REDACTED}
    assert redactor.text(PEM) == PEM


def test_messages_quoting_data_lose_secret_values_too() -> None:
    text = "'4111111111111111' does not match '^[0-9]{4}$'"
    assert Redactor().scrub(text, {"last4": "4111111111111111"}) == \
        f"'{REDACTED}' does not match '^[0-9]{{4}}$'"


def test_text_that_cannot_be_encoded_is_still_scanned() -> None:
    assert Redactor().text("\ud800 4111 1111 1111 1111 \udfff") == f"\ud800 {REDACTED} \udfff"


def test_hostile_text_costs_linear_time() -> None:
    """Inputs that make a backtracking matcher quadratic (hours at this size) finish at once."""
    done = run_python("""
        from engine.redaction import Redactor
        redactor = Redactor()
        hostile = ["eyJ" * 300_000, "eyJa." * 200_000, "1 " * 500_000, "1-" * 500_000,
                   "Bearer " * 150_000, "-----BEGIN PRIVATE KEY-----" * 40_000,
                   "4" * 1_000_000, ("4111 1111 1111 1111 " * 60_000)]
        for text in hostile:
            redactor.text(text)
        print("done")
    """, timeout=HANG_S)
    assert done.stdout.strip() == "done", done.stderr


def luhn(digits: str) -> bool:
    total = 0
    for position, digit in enumerate(reversed(digits)):
        value = int(digit) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def hidden_by_brute_force(groups: list[str]) -> str:
    """The groups joined by spaces, where from each group on the longest run of whole groups
    that is a card number is replaced."""
    shown, i = [], 0
    while i < len(groups):
        best = 0
        for j in range(i + 1, len(groups) + 1):
            number = "".join(groups[i:j])
            if 13 <= len(number) <= 19 and number[0] in "23456" and luhn(number):
                best = j
        shown.append(REDACTED if best else groups[i])
        i = best or i + 1
    return " ".join(shown)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("0123456789", min_size=1, max_size=6), min_size=1, max_size=14),
       st.sampled_from([" ", "-"]))
def test_card_numbers_in_digit_runs_are_found_as_by_brute_force(groups: list[str],
                                                                  separator: str) -> None:
    shown = Redactor().text(separator.join(groups)).replace("-", " ")
    assert shown == hidden_by_brute_force(groups)
