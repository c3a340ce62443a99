"""Mending what a speech recognizer does to words, against the vocabulary of a set's examples:
a long word split in two ("trans fer") is joined again, and two words run together ("mycard")
are split apart, whenever the result is a word some example holds. Mending works on the words
as written (a half like "trans" would lose its "s" to stemming), and only when some word of
the request is unknown to the examples; a request of known words passes as it is.

On copies of BANKING77 and CLINC150 with recognition slips (`tests/bench/bench_corpora.py`:
near-homophones, split, merged and dropped words) it is worth several points of accuracy, and
it leaves the clean rows' accuracy as it was: on by default (`examples.mend_words`). Pure.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from engine.routing.features import LONGEST_WORD
from engine.text.normalize import Normalizer, Tokens

MOST_MENDED = 16
"""Unknown words one request gets mended: a recognizer slips on a word or two, and a request
of many unknown words (or a hostile one) is left as written after these. Each costs at most
two normalizations per cut of a word of at most `LONGEST_WORD` letters."""


def mend(text: str, known: Container[str], normalizer: Normalizer) -> Tokens | None:
    """The normalized words of `text` once its written words are mended (each word that does
    not normalize to known words joined with the next or the one before into a known word,
    else split into two known words); None when there was nothing to mend."""
    written = normalizer.words(text)
    mended: list[str] = []
    changed = False
    position = tries = 0
    while position < len(written):
        word = written[position]
        position += 1
        if tries == MOST_MENDED or all(token in known for token in normalizer.word(word)):
            mended.append(word)
            continue
        tries += 1
        if position < len(written) and _known(word + written[position], known, normalizer):
            mended.append(word + written[position])
            position += 1
            changed = True
        elif mended and _known(mended[-1] + word, known, normalizer):
            mended[-1] += word
            changed = True
        else:
            parts = _split(word, known, normalizer)
            mended += parts
            changed = changed or len(parts) > 1
    return normalizer.tokens(" ".join(mended)) if changed else None


def _known(written: str, known: Container[str], normalizer: Normalizer) -> bool:
    """Does `written` normalize to exactly one known word (of at most `LONGEST_WORD`)?"""
    if len(written) > LONGEST_WORD:
        return False
    words = normalizer.word(written)
    return len(words) == 1 and words[0] in known


def _split(word: str, known: Container[str], normalizer: Normalizer) -> Sequence[str]:
    """`word` cut where both halves are known words (the shortest first half that is), or
    `word` itself."""
    if len(word) > 2 * LONGEST_WORD:
        return [word]
    for cut in range(2, len(word) - 1):
        if _known(word[:cut], known, normalizer) and _known(word[cut:], known, normalizer):
            return [word[:cut], word[cut:]]
    return [word]
