"""Which keys name secrets: spelled as callers spell them (camelCase, spaces, separators,
digits, look-alike and full-width letters), never ordinary words that merely contain one."""

from __future__ import annotations

import pytest

from engine.redaction import Redactor

SECRET = [
    # passwords
    "password", "Password", "PASSWORD", "user_password", "userPassword", "UserPassword",
    "user-password", "User Password", "pass_word", "passwd", "db_passwd", "DB_PASS",
    "smtp_pass", "pwd", "dbPwd", "passphrase", "passcode", "one_time_password",
    # secrets and keys
    "secret", "client_secret", "clientSecret", "SECRET_KEY", "api_key", "apiKey", "ApiKey",
    "APIKEY", "API_KEY", "x-api-key", "API Key", "api.key", "apikeys", "private_key",
    "privateKey", "Private Key", "priv_key", "credentials", "aws_credentials",
    # tokens and headers
    "token", "access_token", "accessToken", "refresh_token", "id_token", "authToken",
    "bearer", "Bearer", "bearer_token", "jwt", "JWT", "jwt_token", "Authorization",
    "proxy-authorization", "cookie", "Set-Cookie", "cookies",
    # cards and bank accounts
    "card_number", "cardNumber", "Card Number", "card_no", "creditCardNumber", "credit_card",
    "cc_number", "cvv", "CVV", "cvv2", "cvc", "CVC2", "security_code", "card_security_code",
    "iban", "IBAN", "payer_iban",
    # PINs and one-time codes
    "pin", "PIN", "pin_code", "pinCode", "card_pin", "new_pin", "pin_number", "pin1", "otp",
    "otp_code", "totp", "verification_code",
    # identity numbers
    "ssn", "SSN", "social_security_number", "socialSecurityNumber",
    # look-alikes: Cyrillic, Greek, full-width, mathematical, invisible and accented letters
    "p\u0430ssword", "\u0440\u0430ssw\u043erd", "\u03c1assword", "p\u03b1ssword",
    "\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44",
    "\uff21\uff30\uff29\uff3f\uff2b\uff25\uff39",
    "pass\u200bword", "pa\u0301ssword", "\u0421VV", "\u03a1\u0399\u039d", "t\u043eken",
    "\u0430pi_k\u0435y",
    "\U0001d429\U0001d41a\U0001d42c\U0001d42c\U0001d430\U0001d428\U0001d42b\U0001d41d",
]
PLAIN = [
    "max_tokens", "token_count", "tokens_used", "prompt_tokens", "tokenizer", "token_type",
    "pinned", "spinner", "opinion", "pin_hint", "spin_count", "keyboard", "description",
    "passenger", "passenger_name", "passport", "bypass", "compass", "author", "authored_by",
    "customer_id", "card_last4", "card_type", "session_id", "caller_verified", "reason",
    "name", "primary_key", "sort_key", "monkey", "cookie_consent", "secretary_email",
    "hotpot", "classname", "ibanez", "keynote",
]


@pytest.mark.parametrize("key", SECRET)
def test_secret_spellings_are_redacted(key: str) -> None:
    assert Redactor().matches(key), key
    assert Redactor().redact({key: "value"}) == {key: "[redacted]"}


@pytest.mark.parametrize("key", PLAIN)
def test_ordinary_keys_are_kept(key: str) -> None:
    assert not Redactor().matches(key), key


def test_the_table_is_large_enough_to_mean_something() -> None:
    assert len(SECRET) >= 60 and len(PLAIN) >= 20


@pytest.mark.parametrize(
    ("pattern", "hits"),
    [
        ("customer_id", ["customerId", "Customer ID", "CUSTOMER_ID", "customer_\u0456d"]),
        ("*_iban", ["payerIban", "Payer IBAN"]),
        ("customer_dob", ["customerDob", "\uff43ustomer_dob"]),
    ],
)
def test_config_patterns_match_the_same_spellings(pattern: str, hits: list[str]) -> None:
    redactor = Redactor([pattern], defaults=False)
    assert [key for key in hits if not redactor.matches(key)] == []


def test_words_only_matter_with_the_defaults_on() -> None:
    assert not Redactor(["customer_id"], defaults=False).matches("cardNumber")
    assert not Redactor([], defaults=False).matches("password")
