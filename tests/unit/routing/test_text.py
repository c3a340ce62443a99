"""Tokenizing task text and seed 000 keyword extraction."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.routing import _extract_keywords, words
from engine.routing.text import phrase


def test_words_are_lower_cased_whole_words() -> None:
    assert words("My Card's LOST, call me!") == ["my", "card", "s", "lost", "call", "me"]


def test_underscores_and_hyphens_split_words() -> None:
    assert words("credit-card fraud_alert") == ["credit", "card", "fraud", "alert"]


def test_phrase_is_the_tuple_of_its_words() -> None:
    assert phrase("Credit  Card") == ("credit", "card")
    assert phrase("!!") == ()


def test_extract_keywords_matches_the_seed_example() -> None:
    text = "Please analyze and report on market trends."
    assert _extract_keywords(text) == ["please", "analyze", "report", "market", "trends"]


def test_extract_keywords_strips_punctuation_before_measuring() -> None:
    assert _extract_keywords('"abcd," (abcde) ...xyzzy!!') == ["abcde", "xyzzy"]


def test_extract_keywords_keeps_duplicates_in_text_order() -> None:
    assert _extract_keywords("Report REPORT report") == ["report", "report", "report"]


def test_phrase_fast_path_agrees_with_the_pattern() -> None:
    for text in ["Card", "ÉTÉ", "x2", "日本", "a_b", "can't", "٣٤", "e\u0301"]:
        assert phrase(text) == tuple(words(text)), text


@given(st.text(max_size=12))
def test_phrase_is_always_the_tuple_of_words(text: str) -> None:
    assert phrase(text) == tuple(words(text))
