"""The text-normalization pipeline shared by keywords, rules and examples: NFKC, case folding,
contraction expansion, disfluency removal, Snowball stemming, and phrase matching in a window.

Built once per snapshot from `engine.yaml`'s `normalization`; pure functions of the text after
that. Nothing here knows about agents, capabilities or policy.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from operator import eq

from engine.text.spec import NormalizationSpec
from engine.text.speech import CONTRACTIONS, FILLER_PHRASES, FILLERS, SPOKEN, SUFFIXES

_WORD = re.compile(r"[^\W_]+")
_WORD_APOSTROPHE = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_ASCII_WORD = re.compile(r"[a-z0-9]+")
_ASCII_WORD_APOSTROPHE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")
"""The same words in lower-cased ASCII text, a third faster to find."""
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})
_MEMO = 1 << 16
"""Distinct words memoized per normalizer before the memo starts over."""

Tokens = list[str]


def _expand(tokens: Tokens) -> Tokens:
    """Contractions to their words: "didn't" -> did not, "dont" -> do not; "card's" -> card."""
    out: Tokens = []
    for token in tokens:
        spoken = SPOKEN.get(token)
        if spoken is not None:
            out += spoken
        elif "'" not in token:
            out.append(token)
        else:
            out += _expand_apostrophe(token)
    return out


def _expand_apostrophe(token: str) -> tuple[str, ...]:
    known = CONTRACTIONS.get(token)
    if known is not None:
        return known
    for suffix, word in SUFFIXES:
        if token.endswith(suffix) and len(token) > len(suffix):
            return (token[: -len(suffix)], word)
    if token.endswith("'s"):
        return (token[:-2],)
    return tuple(part for part in token.split("'") if part)


def _fluent(tokens: Tokens) -> Tokens:
    """Without stutters ("my my card" -> my card) and filler phrases ("you know")."""
    out: Tokens = []
    for token in tokens:
        if out and out[-1] == token:
            continue
        out.append(token)
        if token in _PHRASE_ENDS:
            for filler in FILLER_PHRASES:
                size = len(filler)
                if token == filler[-1] and tuple(out[-size:]) == filler:
                    del out[-size:]
    return out


_PHRASE_ENDS = frozenset(filler[-1] for filler in FILLER_PHRASES)


def _fluent_already(tokens: Tokens) -> bool:
    """No word repeated back to back and no filler phrase ending: `_fluent` would change
    nothing (the common case, checked without a Python-level loop)."""
    return _PHRASE_ENDS.isdisjoint(tokens) and not any(map(eq, tokens, tokens[1:]))


NFKC_CHUNK = 4096
"""Texts longer than this are normalized a chunk at a time, so that the work stops once the
result is `NFKC_GROWTH` times as long as the text (see `nfkc`)."""
NFKC_GROWTH = 3
"""How much longer NFKC may make a long text ("\u00bd" becomes "1\u20442": three characters)."""


def nfkc(text: str) -> str:
    """NFKC of `text`. A long text is normalized a chunk at a time, each chunk ending before a
    character that could join the one before it (a combining mark, a conjoining jamo), and
    only up to `NFKC_GROWTH` times its length: a flood of characters that expand (U+FDFA
    becomes 18) costs what plain text three times as long does, not eighteen times as much."""
    if len(text) <= NFKC_CHUNK:
        return unicodedata.normalize("NFKC", text)
    bound = NFKC_GROWTH * len(text)
    parts: list[str] = []
    size = start = 0
    while start < len(text) and size < bound:
        end = _chunk_end(text, start + NFKC_CHUNK)
        parts.append(unicodedata.normalize("NFKC", text[start:end]))
        size += len(parts[-1])
        start = end
    return "".join(parts)[:bound]


def _chunk_end(text: str, end: int) -> int:
    """Where a chunk ending near `end` may end: before an ASCII character (none joins the one
    before it) within the last 256, else before the nearest character NFKC leaves apart from
    the one before it (within 32; past that the chunk simply ends there)."""
    if end >= len(text):
        return len(text)
    for at in range(end, max(end - 256, 1), -1):
        if text[at].isascii():
            return at
    stop = end - 32
    while end > stop and not _apart(text, end):
        end -= 1
    return end


def _apart(text: str, at: int) -> bool:
    """Whether NFKC leaves `text[at]` apart from what comes before it: it decomposes to no
    mark and no conjoining jamo, or to a mark of class 0 that does not compose with the
    character before it (Kannada's length mark does, after its vowel sign I)."""
    char = text[at]
    first = unicodedata.normalize("NFKD", char)[:1] or char
    if unicodedata.combining(first) or "\u1160" <= first <= "\u11ff":
        return False
    if unicodedata.category(first) not in _MARKS:
        return True
    pair = text[at - 1:at + 1]
    return unicodedata.normalize("NFKC", pair) == (
        unicodedata.normalize("NFKC", pair[0]) + unicodedata.normalize("NFKC", char))


_MARKS = frozenset({"Mn", "Mc", "Me"})


class Normalizer:
    """Turns text into the tokens every layer matches on. `steps` names the steps it runs.

    Each word goes through contractions, fillers and stemming on its own (memoized, so a
    word seen before costs one lookup); then stutters and filler phrases go, in context."""

    __slots__ = ("_ascii", "_memo", "_pattern", "_stem", "spec", "steps", "window")

    def __init__(self, spec: NormalizationSpec | None = None) -> None:
        self.spec = spec = spec or NormalizationSpec()
        self.window = spec.phrase_window
        self._pattern = _WORD_APOSTROPHE if spec.contractions else _WORD
        self._ascii = _ASCII_WORD_APOSTROPHE if spec.contractions else _ASCII_WORD
        self._stem: Callable[[str], str] | None = None
        if spec.stemming != "none":
            import snowballstemmer  # type: ignore[import-untyped]  # only configs that stem

            self._stem = snowballstemmer.stemmer(spec.stemming).stemWord
        self._memo: dict[str, tuple[str, ...]] = {}
        self.steps = tuple(name for name, on in (
            ("nfkc", spec.unicode), ("casefold", spec.casefold),
            ("contractions", spec.contractions), ("disfluencies", spec.disfluencies),
            (f"stemming:{spec.stemming}", self._stem is not None),
            (f"phrase_window:{self.window}", self.window > 0),
        ) if on)

    def _split(self, text: str) -> Tokens:
        spec = self.spec
        ascii_ = text.isascii()
        if spec.unicode and not ascii_:
            text = nfkc(text)
        if spec.contractions and (not ascii_ or "`" in text):  # translate() is slow: skip it
            text = text.translate(_APOSTROPHES)
        text = text.casefold() if spec.casefold else text.lower()
        return (self._ascii if ascii_ else self._pattern).findall(text)

    def _expand(self, tokens: Tokens) -> Tokens:
        return _expand(tokens) if self.spec.contractions else tokens

    def _unfilled(self, tokens: Tokens) -> Tokens:
        if not self.spec.disfluencies:
            return tokens
        return [token for token in tokens if token not in FILLERS]

    def _stemmed(self, tokens: Tokens) -> Tokens:
        stem = self._stem
        return tokens if stem is None else [stem(token) for token in tokens]

    def _word(self, raw: str) -> tuple[str, ...]:
        """One split word through contractions, fillers and stemming."""
        words = tuple(self._stemmed(self._unfilled(self._expand([raw]))))
        if len(self._memo) >= _MEMO:
            self._memo.clear()
        self._memo[raw] = words
        return words

    def words(self, text: str) -> Tokens:
        """The words of `text` as written, each before its own normalization (see `word`)."""
        return self._split(text)

    def word(self, raw: str) -> tuple[str, ...]:
        """One written word normalized on its own: contractions, fillers and stemming (no
        stutters or filler phrases, which need the words around it)."""
        words = self._memo.get(raw)
        return self._word(raw) if words is None else words

    def tokens(self, text: str) -> Tokens:
        """The normalized words of `text`, in order."""
        memo, word = self._memo.get, self._word
        tokens: Tokens = []
        for raw in self._split(text):
            words = memo(raw)
            tokens += word(raw) if words is None else words
        if self.spec.disfluencies and not _fluent_already(tokens):
            return _fluent(tokens)
        return tokens

    def phrase(self, text: str) -> tuple[str, ...]:
        """A keyword or phrase as the tuple of normalized words it must match."""
        return tuple(self.tokens(text))

    def trace(self, text: str) -> list[tuple[str, str]]:
        """Each step with the text after it, for `--explain`."""
        tokens = self._split(text)
        shown = [("words", tokens)]
        if self.spec.contractions:
            tokens = self._expand(tokens)
            shown.append(("contractions", tokens))
        if self.spec.disfluencies:
            tokens = self._unfilled(tokens)
            shown.append(("fillers", tokens))
        if self._stem is not None:
            tokens = self._stemmed(tokens)
            shown.append(("stemming", tokens))
        if self.spec.disfluencies:
            tokens = _fluent(tokens)
            shown.append(("disfluencies", tokens))
        return [(step, " ".join(words)) for step, words in shown]


def contains(tokens: Sequence[str], words: tuple[str, ...], window: int) -> bool:
    """Does `tokens` hold the phrase `words`: consecutive and in order when `window` is 0,
    else all of its words, in any order, within `window` consecutive tokens."""
    size = len(words)
    if window <= 0 or size == 1:
        return any(
            tuple(tokens[i : i + size]) == words for i in range(len(tokens) - size + 1)
        )
    span, wanted = max(window, size), set(words)
    for start, token in enumerate(tokens):
        if token in wanted and wanted.issubset(tokens[start : start + span]):
            return True
    return False


def near(tokens: Sequence[str], position: int, words: tuple[str, ...], window: int) -> bool:
    """Are all of `words` within `window` consecutive tokens that include `position`?"""
    span, wanted = max(window, len(words)), set(words)
    for start in range(max(0, position - span + 1), position + 1):
        if wanted.issubset(tokens[start : start + span]):
            return True
    return False


@functools.lru_cache(maxsize=16)
def normalizer_for(spec: NormalizationSpec | None = None) -> Normalizer:
    """The (shared, immutable) normalizer of a spec; the default pipeline for None."""
    return Normalizer(spec)
