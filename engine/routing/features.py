"""The terms the examples layer weighs, from normalized tokens: each distinct word, each pair of
adjacent words (not two common ones), and the character 3-grams inside each word that is not
common (they carry a misheard or misspelled word); and their TF-IDF weights.

Pure functions of token lists; the fitting and the compiled scoring live in `engine.routing.linear`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

NGRAM_SIZES = (3,)
"""Measured on real queries: 3-grams alone as accurate as 3- and 4-grams, as robust to
recognition slips, and a quarter cheaper to fit."""
NGRAM_WEIGHT = 0.5
"""An n-gram weighs half of what a word with the same idf weighs: many of them share a word."""
LONGEST_WORD = 24
"""Words longer than this give no n-grams (a run of letters is no word a caller said)."""
COMMON_SHARE = 0.05
"""A word in more than this share of the examples (and in more than two) is common: a pair of
two common words ("want to") is no term, and common words give no n-grams."""
NGRAM = "#"
"""The first character of an n-gram term (words never start with it: normalization drops it)."""


def ngrams(word: str) -> list[str]:
    """The character n-grams of `word`, marked at its start and end: "card" -> #<ca, #car,
    #ard, #rd>."""
    if len(word) > LONGEST_WORD:
        return []
    marked = f"<{word}>"
    return [NGRAM + marked[start:start + size]
            for size in NGRAM_SIZES for start in range(len(marked) - size + 1)]


def word_pairs(tokens: Sequence[str], common: frozenset[str]) -> Iterable[str]:
    """The adjacent pairs of `tokens` as terms, leaving out pairs of two common words."""
    for first, second in pairwise(tokens):
        if first not in common or second not in common:
            yield f"{first} {second}"


def example_terms(tokens: Sequence[str], common: frozenset[str]) -> set[str]:
    """Every term of one example: its words, its pairs and the n-grams of its uncommon words."""
    words = set(tokens)
    found = set(words)
    found.update(word_pairs(tokens, common))
    for word in words:
        if word not in common:
            found.update(ngrams(word))
    return found


def common_words(token_lists: Sequence[Sequence[str]]) -> frozenset[str]:
    """The words of more than `COMMON_SHARE` of the examples (and of more than two)."""
    counts: Counter[str] = Counter()
    for tokens in token_lists:
        counts.update(set(tokens))
    limit = max(2, COMMON_SHARE * len(token_lists))
    return frozenset(word for word, count in counts.items() if count > limit)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Every term of the examples with its weight (idf, halved for n-grams), and the common
    words. `unseen` is what a word no example holds adds to a request's squared norm."""

    weights: Mapping[str, float]
    common: frozenset[str]
    unseen: float

    def vector(self, terms: Iterable[str]) -> dict[str, float]:
        """The unit TF-IDF vector of a set of terms (terms outside the vocabulary dropped)."""
        weights = self.weights
        found = {term: weights[term] for term in terms if term in weights}
        norm = math.sqrt(sum(w * w for w in found.values()))
        return {term: w / norm for term, w in found.items()} if norm else {}


def build_vocabulary(
    token_lists: Sequence[Sequence[str]], *, unknown_weight: float
) -> tuple[Vocabulary, list[set[str]]]:
    """The vocabulary of the examples and each example's terms. `unknown_weight` is an unknown
    word's weight in a request's norm as a share of the highest idf (0: it does not count)."""
    common = common_words(token_lists)
    documents = [example_terms(tokens, common) for tokens in token_lists]
    frequency: Counter[str] = Counter()
    for terms in documents:
        frequency.update(terms)
    size = len(documents)
    weights = {
        term: (math.log((size + 1) / (count + 1)) + 1.0) * (NGRAM_WEIGHT if term[0] == NGRAM
                                                             else 1.0)
        for term, count in frequency.items()
    }
    return Vocabulary(weights, common, unseen_weight(size, unknown_weight)), documents


def unseen_weight(examples: int, unknown_weight: float) -> float:
    """What a word no example holds adds to a request's squared norm: `unknown_weight` times
    the highest idf `examples` examples can give a word, squared. It plays no part in fitting,
    so a model takes another `unknown_weight` without fitting again."""
    return (unknown_weight * (math.log(examples + 1) + 1.0)) ** 2
