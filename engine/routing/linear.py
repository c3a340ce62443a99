"""The examples layer's compiled linear model: one int64 matrix with a row per term (a word,
with its character n-grams folded in; a pair of words; an n-gram, for words no example holds)
and a column per class, each cell that term's contribution to the class's score, and per class
a bias. Scoring a request is one dictionary lookup per word and pair, collecting the rows they
name, then the rows summed by numpy (the softmax over the classes follows in
`engine.routing.probabilities`). It costs O(the request's terms + classes), never a walk over
the examples, and everything per class runs in C.

Built by `fit_model` from token lists and class numbers, once per distinct input: kept in
memory (a reload that leaves the examples alone does not fit again) and on disk (a new process
does not either, see `engine.routing.model_store`); scoring is pure.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.routing import features, fitting, model_store
from engine.routing.features import NGRAM, Vocabulary, build_vocabulary, ngrams
from engine.routing.fitting import SCALE, Example, Weights, fit

MAX_CLASSES = 256
"""Example groups one model can hold (a term's row grows by 8 bytes per class)."""
MAX_QUERY_WORDS = 1024
"""Words of one request that are scored (the rest are not looked at): enough for any turn,
and few enough that a sum of rows stays far below the int64 range."""

Entry = tuple[float, int]
"""(squared weight in a request's norm, the term's row). A term whose contributions are all
zero names its row as `-1 - row`: it still counts in the norm, not in the sum."""


class Scores:
    """One request's raw class scores: the summed rows (`fields`, int64, in `unit`s), its
    norm, and whether any of its words is known and not a stop word. `values`, the scores with
    the bias (`norm * score` in `unit`s per 1.0), is computed when read: routing works from
    the fields."""

    __slots__ = ("_biases", "fields", "informative", "norm")

    def __init__(self, fields: Any, norm: float, informative: bool, biases: Any) -> None:
        self.fields, self.norm, self.informative, self._biases = fields, norm, informative, biases

    @property
    def values(self) -> Any:
        """A float64 numpy array, one value per class."""
        return self.fields + self._biases * self.norm


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
    rows: bytes
    """The matrix's cells, little-endian int64, row after row (immutable, and equal for equal
    models; `matrix` reads it without a copy)."""
    matrix: Any = field(default=None, compare=False, repr=False)
    biases: Any = field(default=None, compare=False, repr=False)
    """`rows` as a (terms, classes) numpy array and `bias` as one (filled in on construction)."""

    def __post_init__(self) -> None:
        import numpy as np  # imported by the sets that have examples, when they compile

        matrix = np.frombuffer(self.rows, dtype="<i8").reshape(-1, self.classes)
        object.__setattr__(self, "matrix", matrix)
        object.__setattr__(self, "biases", np.array(self.bias, dtype=np.float64))

    def scores(self, tokens: Sequence[str]) -> Scores | None:
        """Every class's score for `tokens`, in `unit`s: None when no term of theirs is known."""
        words, stop, pairs = self.words, self.stop_words, self.pairs
        tokens = tokens[:MAX_QUERY_WORDS]
        rows: list[int] = []
        squared, informative = 0.0, False
        for word in dict.fromkeys(tokens):
            entry = words.get(word)
            if entry is None:
                entry_squared, found = self._unknown(word)
                squared += entry_squared
                rows += found
                continue
            if not informative and word not in stop:
                informative = True
            squared += entry[0]
            if entry[1] >= 0:
                rows.append(entry[1])
        known = bool(rows)
        paired: dict[int, None] = {}  # a pair said twice counts once, as a word does
        following: Mapping[str, Entry] | None = None
        for word in tokens:
            entry = following.get(word) if following is not None else None
            if entry is not None and entry[1] not in paired:
                paired[entry[1]] = None
                squared += entry[0]
                known = True
            following = pairs.get(word)
        if not known:
            return None
        rows += [row for row in paired if row >= 0]
        return Scores(self.matrix.take(rows, axis=0).sum(axis=0), math.sqrt(squared),
                      informative, self.biases)

    def _unknown(self, word: str) -> tuple[float, list[int]]:
        """A word no example holds: its weight in the norm, and the rows of its known n-grams."""
        squared, rows = self.unseen, []
        for gram in ngrams(word):
            entry = self.ngram_entries.get(gram)
            if entry is not None:
                squared += entry[0]
                if entry[1] >= 0:
                    rows.append(entry[1])
        return squared, rows

    def with_unseen(self, unseen: float) -> LinearModel:
        """This model with an unknown word adding `unseen` to a request's squared norm (the
        fitted weights shared, not copied)."""
        if unseen == self.unseen:
            return self
        return replace(self, unseen=unseen, vocabulary=replace(self.vocabulary, unseen=unseen))

    def contributions(self, term: str) -> tuple[float, ...]:
        """What a word or pair adds to each class's `norm * score` (in 1.0s), for explanations."""
        first, _, second = term.partition(" ")
        if second:
            entry = self.pairs.get(first, {}).get(second)
            rows = [entry[1]] if entry is not None and entry[1] >= 0 else []
        else:
            entry = self.words.get(term)
            rows = (([entry[1]] if entry[1] >= 0 else []) if entry is not None
                    else self._unknown(term)[1])
        if not rows:
            return (0.0,) * self.classes
        return tuple((self.matrix.take(rows, axis=0).sum(axis=0) / self.unit).tolist())


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
    """The routing form of fitted weights (row `n` is the term `names[n]`): a word's row gains
    its n-grams' rows, so a word scores with them in one lookup, and every term's entry names
    its row (see `Entry`)."""
    weights, matrix = vocabulary.weights, fitted.matrix
    number = {term: n for n, term in enumerate(names)}
    kinds: dict[int, tuple[str, float]] = {}  # row -> (kind, squared weight)
    into: list[int] = []
    taken: list[int] = []
    for n, term in enumerate(names):
        squared = weights[term] ** 2
        if term[0] != NGRAM and " " not in term and term not in vocabulary.common:
            for gram in ngrams(term):
                g = number.get(gram)
                if g is not None:
                    squared += weights[gram] ** 2
                    into.append(n)
                    taken.append(g)
        kinds[n] = (term, squared)
    _fold(matrix, into, taken)
    live = matrix.any(axis=1).tolist()
    words: dict[str, Entry] = {}
    pairs: dict[str, dict[str, Entry]] = {}
    grams: dict[str, Entry] = {}
    for n, (term, squared) in kinds.items():
        entry = (squared, n if live[n] else -1 - n)
        first, _, second = term.partition(" ")
        if term[0] == NGRAM:
            grams[term] = entry
        elif second:
            pairs.setdefault(first, {})[second] = entry
        else:
            words[term] = entry
    return LinearModel(words, pairs, grams, tuple(float(b) for b in fitted.bias),
                       float(fitted.unit), vocabulary.unseen, stop_words, vocabulary, classes,
                       matrix.astype("<i8", copy=False).tobytes())


def _fold(matrix: Any, into: list[int], taken: list[int], chunk: int = 4096) -> None:
    """Add row `taken[i]` to row `into[i]` for every `i`, in place (n-gram rows into word
    rows: the rows read are never written), a chunk at a time to bound the copy."""
    import numpy as np

    for start in range(0, len(into), chunk):
        np.add.at(matrix, into[start:start + chunk], matrix[taken[start:start + chunk]])


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


ALGORITHM = ("linear model 2", features.NGRAM_SIZES, features.NGRAM_WEIGHT,
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
            tuple(sorted(vocabulary.common)), vocabulary.unseen, model.classes, model.rows)


def _from_plain(data: tuple[Any, ...]) -> LinearModel:
    (words, pairs, grams, bias, unit, unseen, stop, weights, common, unseen_words, classes,
     rows) = data
    vocabulary = Vocabulary(weights, frozenset(common), unseen_words)
    return LinearModel(words, pairs, grams, tuple(bias), unit, unseen, frozenset(stop),
                       vocabulary, classes, rows)


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
