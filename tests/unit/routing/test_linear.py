"""The examples layer's linear model: scores equal the sum of the weights of their terms, the
same examples give the same model, a reload does not fit again, misheard words still count,
and stop words alone never make a request informative."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.models import NormalizationSpec
from engine.routing import features, linear
from engine.routing.features import ngrams, word_pairs
from engine.routing.linear import LinearModel, fit_model
from engine.text.normalize import Normalizer

NORMALIZER = Normalizer(NormalizationSpec())
TEXTS = {
    0: ["my card was stolen", "someone took my wallet", "I do not recognise this payment",
        "there is a charge I never made", "block my card please"],
    1: ["I want a new credit card", "which card has cashback", "upgrade to a premium card",
        "compare your travel cards", "order a virtual card"],
    2: ["what is my balance", "change my address", "how do I reset my password",
        "update my phone number", "where is my statement"],
}


def corpus() -> tuple[list[list[str]], list[int]]:
    tokens, labels = [], []
    for label, texts in TEXTS.items():
        for text in texts:
            tokens.append(NORMALIZER.tokens(text))
            labels.append(label)
    return tokens, labels


def model(unknown_weight: float = 1.0) -> LinearModel:
    tokens, labels = corpus()
    return fit_model(tokens, labels, classes=3, unknown_weight=unknown_weight,
                     stop_words=frozenset(NORMALIZER.tokens("i want to my please")))


def reference(found: LinearModel, tokens: Sequence[str]) -> list[float]:
    """Each class's norm * score from every term's own contributions, in floats."""
    words = list(dict.fromkeys(tokens))
    terms = words + [pair for pair in dict.fromkeys(word_pairs(tokens, frozenset()))
                     if pair.partition(" ")[0] in found.pairs
                     and pair.partition(" ")[2] in found.pairs[pair.partition(" ")[0]]]
    totals = [0.0] * found.classes
    for term in terms:
        for c, value in enumerate(found.contributions(term)):
            totals[c] += value
    squared = sum((found.words.get(w) or found._unknown(w))[0] for w in words)
    squared += sum(found.pairs[t.split(" ")[0]][t.split(" ")[1]][0] for t in terms if " " in t)
    norm = math.sqrt(squared)
    return [total + bias / found.unit * norm for total, bias in zip(totals, found.bias,
                                                                    strict=True)]


def test_the_examples_are_learned() -> None:
    found = model()
    tokens, labels = corpus()
    for words, label in zip(tokens, labels, strict=True):
        scores = found.scores(words)
        assert scores is not None
        assert max(range(3), key=scores.values.__getitem__) == label


WORDS = [*sorted({w for texts in TEXTS.values() for t in texts for w in NORMALIZER.tokens(t)}),
         "zebra", "cardd", "stolne"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12))
def test_scores_equal_the_sum_of_each_terms_weights(words: list[str]) -> None:
    found = model()
    scores = found.scores(words)
    if scores is None:
        assert not any(value for term in words for value in found.contributions(term))
        return
    expected = reference(found, words)
    for got, want in zip(scores.values, expected, strict=True):
        assert got / found.unit == pytest.approx(want, rel=1e-6, abs=1e-6)


def test_the_same_examples_give_the_same_model_and_are_fitted_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("HANDOFF_MODEL_CACHE", str(tmp_path))  # no model kept from before
    tokens, labels = corpus()
    first = linear._fit(tokens, labels, 3, 1.0, frozenset())
    second = linear._fit(tokens, labels, 3, 1.0, frozenset())
    assert first == second  # integer weights: equal, not just close
    calls: list[int] = []
    real = linear._fit
    monkeypatch.setattr(linear, "_fit", lambda *args: calls.append(1) or real(*args))
    again = [fit_model(tokens, labels, classes=3, unknown_weight=0.5, stop_words=frozenset())
             for _ in range(3)]
    assert len(calls) == 1 and again[0] == again[1] == again[2]
    assert again[0].words is again[1].words is again[2].words  # one fit, shared


def test_another_unknown_word_weight_does_not_fit_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("HANDOFF_MODEL_CACHE", str(tmp_path))  # no model kept from before
    monkeypatch.setattr(linear, "_CACHE", linear._Fitted(2))
    calls: list[int] = []
    real = linear._fit
    monkeypatch.setattr(linear, "_fit", lambda *args: calls.append(1) or real(*args))
    strict, lenient = model(unknown_weight=3.0), model(unknown_weight=0.5)
    assert len(calls) == 1 and strict.words is lenient.words
    assert strict.unseen == pytest.approx(36 * lenient.unseen)
    tokens, labels = corpus()
    refitted = linear._fit(tokens, labels, 3, 3.0, frozenset(strict.stop_words))
    words = NORMALIZER.tokens("block my card at the aquarium")
    assert (found := strict.scores(words)) is not None
    assert (again := refitted.scores(words)) is not None
    assert list(found.values) == list(again.values)  # as if fitted with it
    assert found.norm == again.norm


def test_a_misheard_word_still_counts_through_its_ngrams() -> None:
    found = model()
    scores = found.scores(NORMALIZER.tokens("my cashbak card"))  # "cashback" misheard
    assert scores is not None
    assert max(range(3), key=scores.values.__getitem__) == 1
    assert ngrams("card") == ["#<ca", "#car", "#ard", "#rd>"]


def test_unknown_words_make_a_request_less_sure() -> None:
    strict, lenient = model(unknown_weight=2.0), model(unknown_weight=0.0)
    words = NORMALIZER.tokens("my card was stolen on the zebra crossing near the aquarium")
    sure = [found.scores(words) for found in (strict, lenient)]
    assert sure[0] is not None and sure[1] is not None
    assert sure[0].norm > sure[1].norm  # the same evidence over a longer vector


def test_stop_words_alone_are_not_informative() -> None:
    found = model()
    assert (scores := found.scores(NORMALIZER.tokens("I want to please"))) is None or \
        not scores.informative
    informative = found.scores(NORMALIZER.tokens("I want to block my card"))
    assert informative is not None and informative.informative


def test_a_long_request_is_scored_on_its_first_words_without_overflow() -> None:
    found = model()
    words = NORMALIZER.tokens(" ".join(["stolen card wallet balance cashback"] * 300
                                       + [f"w{n}" for n in range(5000)]))
    scores = found.scores(words)
    assert scores is not None
    expected = reference(found, words[:linear.MAX_QUERY_WORDS])
    for got, want in zip(scores.values, expected, strict=True):
        assert got / found.unit == pytest.approx(want, rel=1e-6, abs=1e-6)


def test_common_words_make_no_pairs_and_no_ngrams() -> None:
    common = features.common_words([["a", "b"]] * 10 + [["c"]])
    assert common == frozenset({"a", "b"})
    terms = features.example_terms(["a", "b", "c"], common)
    assert "a b" not in terms and "b c" in terms
    assert not any(term.startswith("#<a") for term in terms)
