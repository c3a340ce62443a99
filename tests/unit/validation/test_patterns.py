"""The pattern dialect: RE2 (linear time), ECMA-262 anchors, refusals with RE2's reason."""

from __future__ import annotations

import pytest

from engine.validation.patterns import PatternError, compile_pattern, matches

NAME = "^[A-Za-z][A-Za-z0-9_.\\-]*$"


@pytest.mark.parametrize("text", ["fraud_agent\n", "fraud_agent\r\n", "\nfraud_agent", "a b"])
def test_dollar_is_the_end_of_the_text_never_before_a_final_newline(text: str) -> None:
    assert matches(NAME, "fraud_agent")
    assert not matches(NAME, text)


def test_unanchored_patterns_search_anywhere() -> None:
    assert matches("\\S", "  x  ")
    assert matches("b", "abc")
    assert not matches("\\S", " \n\t")


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("^\\u00e9$", "é"), ("^\\u{1F600}$", "\U0001f600"), ("^caf\\u00E9s?$", "cafés")],
)
def test_ecma_unicode_escapes_are_understood(pattern: str, text: str) -> None:
    assert matches(pattern, text)


def test_an_escaped_backslash_before_u_stays_a_backslash() -> None:
    assert matches("^\\\\u0041$", "\\u0041")
    assert not matches("^\\\\u0041$", "\\A")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [("(?=a)", "invalid perl operator"), ("(a)\\1", "invalid escape"), ("(", "missing )")],
)
def test_patterns_re2_cannot_run_are_refused_with_its_reason(pattern: str, reason: str) -> None:
    with pytest.raises(PatternError) as caught:
        compile_pattern(pattern)
    assert caught.value.pattern == pattern
    assert reason in caught.value.reason


def test_text_with_a_lone_surrogate_is_matched_not_raised() -> None:
    assert not matches(NAME, "fraud\ud800")
    assert matches("fraud", "fraud\ud800")

