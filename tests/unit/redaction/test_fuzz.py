"""Fuzz target over key spellings: secret words written with generated separators, case styles,
look-alike, full-width and invisible characters around them are always redacted; ordinary
words written the same ways never are. Bounded for CI: a fixed number of examples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.redaction import Redactor
from engine.redaction.keys import _DRAWN_LIKE

REDACTOR = Redactor()
STEMS = [["password"], ["pass", "word"], ["passwd"], ["passphrase"], ["secret"],
         ["credential"], ["credentials"], ["api", "key"], ["private", "key"],
         ["card", "number"], ["credit", "card"], ["security", "code"],
         ["social", "security", "number"], ["access", "key"]]
"""Secret however they are joined, even with nothing between the words."""
WORDS = [["jwt"], ["bearer"], ["iban"], ["ssn"], ["cvv"], ["cvc"], ["otp"], ["pwd"]]
"""Secret as words of their own: they need a separator or a change of case around them."""
NOUNS = [["pin"], ["token"], ["cookie"], ["authorization"], ["pin", "code"], ["card", "no"]]
"""Secret as the last words of a key."""
AROUND = ["user", "db", "client", "new", "my", "x", "primary", "customer", "old", "aws"]
PLAIN = ["max", "tokens", "count", "pinned", "spinner", "opinion", "keyboard", "description",
         "passenger", "customer", "id", "session", "hint", "type", "reason", "name", "author",
         "sort", "key", "primary", "total", "keynote", "passport", "used", "last"]
STYLES = ["snake", "kebab", "space", "dot", "camel", "pascal", "upper", "joined"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
LOOKALIKE = {latin: list(chars) for latin, chars in _DRAWN_LIKE.items()}


def spell(parts: list[str], style: str) -> str:
    if style == "camel":
        return parts[0] + "".join(part.capitalize() for part in parts[1:])
    if style == "pascal":
        return "".join(part.capitalize() for part in parts)
    if style == "upper":
        return "_".join(parts).upper()
    separator = {"snake": "_", "kebab": "-", "space": " ", "dot": ".", "joined": ""}[style]
    return separator.join(parts)


@st.composite
def disguised(draw: st.DrawFn, text: str) -> str:
    """`text` with some letters drawn from other scripts, full-width, or invisibly split."""
    out = []
    for ch in text:
        how = draw(st.sampled_from(["keep", "keep", "keep", "lookalike", "wide", "invisible"]))
        if how == "lookalike" and ch in LOOKALIKE:
            out.append(draw(st.sampled_from(LOOKALIKE[ch])))
        elif how == "wide" and ch.isascii() and ch.isalnum():
            out.append(chr(ord(ch) + 0xFEE0))
        elif how == "invisible":
            out.append(draw(st.sampled_from(INVISIBLE)) + ch)
        else:
            out.append(ch)
    return "".join(out)


@st.composite
def secret_keys(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["stem", "word", "noun"]))
    before = draw(st.lists(st.sampled_from(AROUND), max_size=2))
    after = [] if kind == "noun" else draw(st.lists(st.sampled_from(AROUND), max_size=1))
    secret = draw(st.sampled_from({"stem": STEMS, "word": WORDS, "noun": NOUNS}[kind]))
    styles = STYLES if kind == "stem" else [s for s in STYLES if s != "joined"]
    key = spell([*before, *secret, *after], draw(st.sampled_from(styles)))
    return draw(disguised(key))


@st.composite
def plain_keys(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(PLAIN), min_size=1, max_size=3))
    return draw(disguised(spell(parts, draw(st.sampled_from(STYLES)))))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(secret_keys())
def test_secret_words_however_spelled_are_redacted(key: str) -> None:
    assert REDACTOR.matches(key), ascii(key)
    assert REDACTOR.redact({key: "s3cr3t"}) == {key: "[redacted]"}


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(plain_keys())
def test_ordinary_words_however_spelled_are_kept(key: str) -> None:
    assert not REDACTOR.matches(key), ascii(key)
