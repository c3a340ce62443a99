"""Mending what a speech recognizer does to words, against the vocabulary of a set's examples:
a long word split in two ("trans fer") is joined again, and two words run together ("mycard")
are split apart, whenever the result is a word some example holds. Mending works on the words
as written (a half like "trans" would lose its "s" to stemming), and only when some word of
the request is unknown to the examples; a request of known words passes as it is.

A mend must not invent what was said, so it never uses a stop word as half of a join ("a broad"
stays, though "abroad" is known) and never cuts off a half of fewer than three letters unless
that half is a stop word ("mycard" is "my card"; "hire" is not "hi re").

On copies of BANKING77 and CLINC150 with recognition slips (`tests/bench/bench_corpora.py`:
near-homophones, split, merged and dropped words) it is worth several points of accuracy, and
it leaves the clean rows' accuracy as it was: on by default (`examples.mend_words`). Pure.
"""

from __future__ import annotations

from collections.abc import Container

from engine.routing.features import LONGEST_WORD
from engine.text.normalize import Normalizer, Tokens

MOST_MENDED = 16
"""Unknown words one request gets mended: a recognizer slips on a word or two, and a request
of many unknown words (or a hostile one) is left as written after these. A mend only makes
words of at most `LONGEST_WORD` letters, so each costs a bounded number of normalizations."""
SHORTEST_HALF = 3
"""The fewest letters of a half cut off a run-on word, unless that half is a stop word."""


class KnownWords:
    """What a mend may make: words some example holds (`known`), and the stop words that are
    never half of a join (both as normalized words)."""

    __slots__ = ("known", "normalizer", "stop")

    def __init__(self, known: Container[str], stop: Container[str],
                 normalizer: Normalizer) -> None:
        self.known, self.stop, self.normalizer = known, stop, normalizer

    def knows(self, written: str) -> bool:
        """Is every normalized word of `written` (none, for a filler) a known word?"""
        return all(word in self.known for word in self.normalizer.word(written))

    def one(self, written: str) -> str | None:
        """`written`'s one normalized word when it is known and no longer than LONGEST_WORD."""
        if len(written) > LONGEST_WORD:
            return None
        words = self.normalizer.word(written)
        return words[0] if len(words) == 1 and words[0] in self.known else None

    def is_stop(self, written: str) -> bool:
        return any(word in self.stop for word in self.normalizer.word(written))


def mend(text: str, words: KnownWords) -> Tokens | None:
    """The normalized words of `text` once its written words are mended (each word that does
    not normalize to known words joined with the next or the one before into a known word,
    else split into two known words); None when there was nothing to mend."""
    written = words.normalizer.words(text)
    mended: list[str] = []
    changed = False
    position = tries = 0
    while position < len(written):
        word = written[position]
        position += 1
        if tries == MOST_MENDED or words.knows(word):
            mended.append(word)
            continue
        tries += 1
        following = written[position] if position < len(written) else None
        if following is not None and _joins(word, following, words):
            mended.append(word + following)
            position += 1
            changed = True
        elif mended and _joins(mended[-1], word, words):
            mended[-1] += word
            changed = True
        else:
            parts = _split(word, words)
            mended += parts
            changed = changed or len(parts) > 1
    return words.normalizer.tokens(" ".join(mended)) if changed else None


def _joins(first: str, second: str, words: KnownWords) -> bool:
    """Are `first` and `second` one known word split in two (neither a stop word)?"""
    return (words.one(first + second) is not None
            and not words.is_stop(first) and not words.is_stop(second))


def _split(word: str, words: KnownWords) -> list[str]:
    """`word` cut where both halves are known words (the shortest first half that is; a half
    of fewer than SHORTEST_HALF letters only when it is a stop word, and not both halves stop
    words), or `word` itself."""
    for cut in range(2, min(len(word) - 1, LONGEST_WORD + 1)):
        first, second = word[:cut], word[cut:]
        if words.one(first) is None or words.one(second) is None:
            continue
        stops = words.is_stop(first), words.is_stop(second)
        if all(stops) or any(len(half) < SHORTEST_HALF and not stop
                             for half, stop in zip((first, second), stops, strict=True)):
            continue
        return [first, second]
    return [word]
