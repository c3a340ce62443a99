"""The examples layer's compiled linear model: per known word ONE signed packed integer holding
its contributions to every class (its own and its n-grams'), per known pair of words another,
and per class a bias. Scoring a request is one integer addition per word and per pair, then a
few numpy operations over the classes' fields: O(the request's terms + classes), never a walk
over the examples, and the per-class part runs in C (a Python loop over 150 classes cost a
route three times what the words did).

Built by `fit_model` from token lists and class numbers, once per distinct input: kept in
memory (a reload that leaves the examples alone does not fit again) and on disk (a new process
does not either, see `engine.routing.model_store`); scoring is pure.
"""

from __future__ import annotations

import contextlib
import math
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from engine.routing import features, fitting, model_store
from engine.routing.features import NGRAM, Vocabulary, build_vocabulary, ngrams
from engine.routing.fitting import BITS, SCALE, Example, Weights, fit

MAX_CLASSES = 256
"""Example groups one model can hold (a term's integer grows by 8 bytes per class)."""
MAX_QUERY_WORDS = 1024
"""Words of one request that are scored (the rest are not looked at): enough for any turn,
and few enough that a sum of fields never nears `_SIGN`."""
_SIGN = 1 << 63
"""A field's top bit. Adding it to every field of a request's sum makes each field
non-negative, so no field borrows from the next (a sum stays far below 2**62 in magnitude);
flipping it again leaves each field in two's complement, so the fields unpack signed, exact
and in one C call."""

Entry = tuple[float, int]
"""(squared weight in a request's norm, packed contributions to every class)."""


@dataclass(frozen=True, slots=True)
class Scores:
    """One request's raw class scores (`norm * score` in `unit`s per 1.0) and what it held:
    its norm, and whether any of its words is known and not a stop word."""

    values: Any
    """A float64 numpy array, one value per class."""
    norm: float
    informative: bool


@dataclass(frozen=True, slots=True)
class LinearModel:
    """A fitted model in the compiled form routing uses (see the module docstring)."""

    words: Mapping[str, Entry]
    pairs: Mapping[str, Mapping[str, Entry]]
    ngram_entries: Mapping[str, Entry]
    bias: tuple[float, ...]
    unit: float
    unseen: float
    stop_words: frozenset[str]
    vocabulary: Vocabulary
    classes: int
    biases: Any = field(default=None, compare=False, repr=False)
    """`bias` as a numpy array (filled in on construction)."""

    def __post_init__(self) -> None:
        import numpy as np  # imported by the sets that have examples, when they compile

        object.__setattr__(self, "biases", np.array(self.bias, dtype=np.float64))

    def scores(self, tokens: Sequence[str]) -> Scores | None:
        """Every class's score for `tokens`, in `unit`s: None when no term of theirs is known."""
        words, total, squared, known, informative = self.words, 0, 0.0, False, False
        stop = self.stop_words
        tokens = tokens[:MAX_QUERY_WORDS]
        distinct = dict.fromkeys(tokens)
        for word in distinct:
            entry = words.get(word)
            if entry is None:
                entry = self._unknown(word)
            elif not informative and word not in stop:
                informative = True
            squared += entry[0]
            if entry[1]:
                total += entry[1]
                known = True
        for first, second in dict.fromkeys(pairwise(tokens)):
            following = self.pairs.get(first)
            entry = following.get(second) if following is not None else None
            if entry is not None:
                squared += entry[0]
                total += entry[1]
                known = True
        if not known:
            return None
        norm = math.sqrt(squared)
        return Scores(_field_array(total, self.classes) + self.biases * norm, norm, informative)

    def _unknown(self, word: str) -> Entry:
        """A word no example holds: its weight in the norm, and what its known n-grams say."""
        squared, packed = self.unseen, 0
        for gram in ngrams(word):
            entry = self.ngram_entries.get(gram)
            if entry is not None:
                squared += entry[0]
                packed += entry[1]
        return squared, packed

    def with_unseen(self, unseen: float) -> LinearModel:
        """This model with an unknown word adding `unseen` to a request's squared norm (the
        fitted weights shared, not copied)."""
        if unseen == self.unseen:
            return self
        return replace(self, unseen=unseen, vocabulary=replace(self.vocabulary, unseen=unseen))

    def contributions(self, term: str) -> tuple[float, ...]:
        """What a word or pair adds to each class's `norm * score` (in 1.0s), for explanations."""
        first, _, second = term.partition(" ")
        entry = self.pairs.get(first, {}).get(second) if second else (
            self.words.get(term) or self._unknown(term))
        if not entry or not entry[1]:
            return (0.0,) * self.classes
        return tuple(field / self.unit for field in _fields(entry[1], self.classes))


def softmax(values: Any, scale: float) -> Any:
    """The softmax of `values * scale` (numpy arrays in and out)."""
    import numpy as np  # already loaded by the model (see `LinearModel.__post_init__`)

    shares = np.exp((values - values.max()) * scale)
    shares *= 1.0 / shares.sum()
    return shares


_SIGNS: dict[int, int] = {}


def _signed_bytes(packed: int, classes: int) -> bytes:
    """The fields of a packed sum of `classes` classes as little-endian signed 64-bit
    integers (see `_SIGN`)."""
    signs = _SIGNS.get(classes)
    if signs is None:
        signs = _SIGNS[classes] = sum(_SIGN << (BITS * c) for c in range(classes))
    return ((packed + signs) ^ signs).to_bytes(classes * 8, "little")


def _fields(packed: int, classes: int) -> tuple[int, ...]:
    """The signed fields of a packed sum, as Python integers."""
    fields: tuple[int, ...] = struct.unpack(f"<{classes}q", _signed_bytes(packed, classes))
    return fields


def _field_array(packed: int, classes: int) -> Any:
    """The signed fields of a packed sum, as an int64 numpy array (scoring a route: one
    array operation per step, whatever the number of classes)."""
    import numpy as np

    return np.frombuffer(_signed_bytes(packed, classes), dtype="<i8")


def _examples(documents: Sequence[set[str]], labels: Sequence[int], vocabulary: Vocabulary,
              number: Mapping[str, int]) -> list[Example]:
    weights, found = vocabulary.weights, []
    for terms, label in zip(documents, labels, strict=True):
        ordered = sorted(terms)
        norm = math.sqrt(sum(weights[t] ** 2 for t in ordered)) or 1.0
        gains = tuple(weights[t] ** 2 * SCALE / norm for t in ordered)
        found.append(Example(tuple(number[t] for t in ordered), gains, norm, label))
    return found


def _compile(
    fitted: Weights, names: Sequence[str], vocabulary: Vocabulary, stop_words: frozenset[str],
    classes: int,
) -> LinearModel:
    weights = vocabulary.weights
    packed = dict(zip(names, fitted.terms, strict=True))
    grams = {t: (weights[t] ** 2, packed[t]) for t in names if t[0] == NGRAM}
    words: dict[str, Entry] = {}
    pairs: dict[str, dict[str, Entry]] = {}
    for term in names:
        if term[0] == NGRAM:
            continue
        first, _, second = term.partition(" ")
        if second:
            pairs.setdefault(first, {})[second] = (weights[term] ** 2, packed[term])
            continue
        squared, total = weights[term] ** 2, packed[term]
        for gram in ngrams(term) if term not in vocabulary.common else ():
            entry = grams.get(gram)
            if entry is not None:
                squared, total = squared + entry[0], total + entry[1]
        words[term] = (squared, total)
    return LinearModel(words, pairs, grams, tuple(float(b) for b in fitted.bias),
                       float(fitted.unit), vocabulary.unseen, stop_words, vocabulary, classes)


def fit_model(
    token_lists: Sequence[Sequence[str]], labels: Sequence[int], *, classes: int,
    unknown_weight: float, stop_words: frozenset[str],
) -> LinearModel:
    """The model of examples (`token_lists`, each with its class number), fitted once per
    distinct input in this process (a reload with the same examples reuses it). The weight of
    unknown words is no input of the fit: another `unknown_weight` reuses the fitted model."""
    key = (tuple(map(tuple, token_lists)), tuple(labels), classes, tuple(sorted(stop_words)))
    fitted = _CACHE.get(key, lambda: _stored_or_fitted(key))
    return fitted.with_unseen(features.unseen_weight(len(token_lists), unknown_weight))


ALGORITHM = ("linear model 1", features.NGRAM_SIZES, features.NGRAM_WEIGHT,
             features.LONGEST_WORD, features.COMMON_SHARE, fitting.EPOCHS, fitting.AVERAGE_FROM,
             fitting.SNAPSHOTS, fitting.AGGRESSIVENESS, fitting.SEED, fitting.SCALE)
"""What a kept model was fitted with besides its examples: a change here fits anew."""


def _stored_or_fitted(key: tuple[Any, ...]) -> LinearModel:
    """The model kept on disk for these inputs (see `engine.routing.model_store`), or a new
    fit, then kept."""
    tokens, labels, classes, stop_words = key
    stored = model_store.digest((ALGORITHM, *key))
    data = model_store.load(stored)
    if data is not None:
        with contextlib.suppress(TypeError, ValueError):
            return _from_plain(data)
    model = _fit(tokens, labels, classes, 1.0, frozenset(stop_words))  # unseen: set by caller
    model_store.save(stored, _plain(model))
    return model


def _plain(model: LinearModel) -> tuple[Any, ...]:
    vocabulary = model.vocabulary
    return (dict(model.words), {first: dict(rest) for first, rest in model.pairs.items()},
            dict(model.ngram_entries), model.bias, model.unit, model.unseen,
            tuple(sorted(model.stop_words)), dict(vocabulary.weights),
            tuple(sorted(vocabulary.common)), vocabulary.unseen, model.classes)


def _from_plain(data: tuple[Any, ...]) -> LinearModel:
    words, pairs, grams, bias, unit, unseen, stop, weights, common, unseen_words, classes = data
    vocabulary = Vocabulary(weights, frozenset(common), unseen_words)
    return LinearModel(words, pairs, grams, tuple(bias), unit, unseen, frozenset(stop),
                       vocabulary, classes)


def _fit(token_lists: Sequence[Sequence[str]], labels: Sequence[int], classes: int,
         unknown_weight: float, stop_words: frozenset[str]) -> LinearModel:
    vocabulary, documents = build_vocabulary(token_lists, unknown_weight=unknown_weight)
    names = sorted(vocabulary.weights)
    number = {term: n for n, term in enumerate(names)}
    examples = _examples(documents, labels, vocabulary, number)
    fitted = fit(examples, terms=len(names), classes=classes)
    return _compile(fitted, names, vocabulary, stop_words, classes)


class _Fitted:
    """The last few fitted models by their whole input (an LRU; fitting is the expensive
    part of compiling a snapshot with many examples)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._models: OrderedDict[object, LinearModel] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object, make: Callable[[], LinearModel]) -> LinearModel:
        with self._lock:
            found = self._models.get(key)
            if found is not None:
                self._models.move_to_end(key)
                return found
        model = make()
        with self._lock:
            self._models[key] = model
            while len(self._models) > self._size:
                self._models.popitem(last=False)
        return model


_CACHE = _Fitted(2)
