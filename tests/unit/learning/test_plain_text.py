"""Cleaning a corpus row's text: control and separator characters become spaces and runs of
spaces one, whichever path (the printable fast path or the per-character one) a row takes."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.learning.clean import plain_text


def by_character(text: str) -> str:
    spaced = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in text)
    return " ".join(spaced.split())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_every_text_is_cleaned_as_character_by_character(text: str) -> None:
    assert plain_text(text) == by_character(text)


def test_separators_and_controls_become_single_spaces() -> None:
    assert plain_text("lost\u2028my\u00a0card\x00 \u200b now\t") == "lost my card now"
