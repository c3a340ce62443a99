"""The normalization pipeline: each step, the exact preset, phrase windows, the trace."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.models import EXACT, NormalizationSpec
from engine.routing import words
from engine.text.normalize import NFKC_CHUNK, NFKC_GROWTH, Normalizer, contains, near, nfkc

DEFAULT = Normalizer()
NO_STEMS = Normalizer(NormalizationSpec(stemming="none"))


def test_contractions_expand_with_or_without_the_apostrophe() -> None:
    assert NO_STEMS.tokens("I didn't make it") == ["i", "did", "not", "make", "it"]
    assert NO_STEMS.tokens("i didnt make it") == ["i", "did", "not", "make", "it"]
    assert NO_STEMS.tokens("I can’t, won't; it's") == ["i", "can", "not", "will", "not", "it", "is"]
    assert NO_STEMS.tokens("my card's gone") == ["my", "card", "gone"]
    assert NO_STEMS.tokens("we'll see, you've got, they're here") == [
        "we", "will", "see", "you", "have", "got", "they", "are", "here"]


def test_disfluencies_drop_fillers_stutters_and_filler_phrases() -> None:
    text = "uh yeah so my my card um you know i think erm somebody stole it"
    assert NO_STEMS.tokens(text) == [
        "yeah", "so", "my", "card", "i", "think", "somebody", "stole", "it"]


def test_unicode_and_case_folding() -> None:
    assert NO_STEMS.tokens("ＣＡＲＤ Straße or STRASSE") == ["card", "strasse", "or", "strasse"]


def test_stemming_joins_inflections() -> None:
    assert DEFAULT.tokens("charged cards arrived") == DEFAULT.tokens("charge card arrive")
    assert DEFAULT.tokens("cardiology") != DEFAULT.tokens("card")


def test_each_step_can_be_turned_off() -> None:
    spec = NormalizationSpec(contractions=False, disfluencies=False, stemming="none")
    assert Normalizer(spec).tokens("uh I didn't") == ["uh", "i", "didn", "t"]


@given(st.text(max_size=40))
def test_exact_is_the_plain_word_split(text: str) -> None:
    assert Normalizer(EXACT).tokens(text) == words(text)
    assert Normalizer(EXACT).steps == ()


@given(st.text(alphabet="abc 'u,mMy’", max_size=40))
def test_trace_ends_with_the_tokens(text: str) -> None:
    trace = DEFAULT.trace(text)
    assert trace[-1][1] == " ".join(DEFAULT.tokens(text))
    assert [step for step, _ in trace] == [
        "words", "contractions", "fillers", "stemming", "disfluencies"]


def test_phrases_in_a_window_match_in_any_order() -> None:
    tokens = ["my", "debit", "card", "got", "stolen"]
    assert not contains(tokens, ("stolen", "card"), 0)
    assert contains(tokens, ("stolen", "card"), 3)
    assert not contains(tokens, ("stolen", "debit"), 3)
    assert contains(["stolen", "card"], ("stolen", "card"), 0)
    assert near(tokens, 2, ("stolen", "card"), 3)
    assert not near(tokens, 0, ("stolen", "card"), 3)


def test_steps_name_what_runs() -> None:
    assert DEFAULT.steps == (
        "nfkc", "casefold", "contractions", "disfluencies", "stemming:english", "phrase_window:3"
    )
    assert Normalizer(NormalizationSpec(phrase_window=4)).steps[-1] == "phrase_window:4"
    assert "phrase_window:0" not in Normalizer(NormalizationSpec(phrase_window=0)).steps


SPEECH = st.lists(st.sampled_from(
    ["you", "know", "i", "mean", "my", "card", "um", "uh", "it's", "didnt", "Cards", "know"]),
    max_size=14).map(" ".join)


@given(SPEECH)
def test_fused_tokens_agree_with_the_step_by_step_trace(text: str) -> None:
    assert DEFAULT.trace(text)[-1][1] == " ".join(DEFAULT.tokens(text))
    no_fillers = Normalizer(NormalizationSpec(disfluencies=False))
    assert no_fillers.trace(text)[-1][1] == " ".join(no_fillers.tokens(text))


_PIECES = ["card ", "caf\u00e9 ", "cafe\u0301 ", "\ufb01le ", "\u1100\u1161\u11a8", "\uac00",
           "\u304b\u3099", "\u30ab\u3099", "\u6f22\u5b57", "x\u0323\u0307", "\u00bd", " ", "\u2460",
           "\uff76\uff9e", "\uff8a\uff9f", "\u3131\u314f", "\u0cbf\u0cd5", "\u0bc6\u0bbe",
           "\u1025\u102e", "\u4e00\u4e8c\u4e09"]
"""Pieces NFKC composes across (marks, jamo, half-width sound marks, Indic length marks), and
long runs without an ASCII character, so chunk ends fall between them."""


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=80), st.integers(0, 64))
@settings(max_examples=60, deadline=None)
def test_a_long_text_normalized_in_chunks_is_what_nfkc_gives_whole(
    pieces: list[str], shift: int
) -> None:
    """Chunks end before combining marks and conjoining jamo, so a long text (over
    `NFKC_CHUNK`) that NFKC does not grow past `NFKC_GROWTH` times its length comes out
    exactly as one NFKC call would give it, wherever its chunks end."""
    unit = "".join(pieces)
    text = "a" * shift + unit * (3 * NFKC_CHUNK // len(unit) + 1)
    whole = unicodedata.normalize("NFKC", text)
    assert len(text) > NFKC_CHUNK and len(whole) <= NFKC_GROWTH * len(text)
    assert nfkc(text) == whole


def test_a_flood_of_expanding_characters_stops_at_three_times_its_length() -> None:
    """U+FDFA becomes 18 characters: 65,000 of them would be 1.17 million to split and match."""
    text = "\ufdfa" * 65_000
    found = nfkc(text)
    assert len(found) == NFKC_GROWTH * len(text)
    assert unicodedata.normalize("NFKC", text).startswith(found)
    words = Normalizer().tokens(text)
    assert 0 < len(words) <= len(found) // 2
