"""Mending recognition slips against the examples' vocabulary: split words are joined, run-on
words split, only when the result is known and without making up words out of stop words or
two-letter scraps; known words and unmendable ones pass untouched; the router scores and
explains the mended words, and `examples.mend_words: false` turns it off."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.config.models import (
    AgentSpec,
    ConfigSet,
    EngineSpec,
    ExamplesSpec,
    NormalizationSpec,
)
from engine.routing import Router, RouteRequest
from engine.routing.explain import render_text
from engine.routing.features import LONGEST_WORD
from engine.routing.mend import MOST_MENDED, KnownWords, mend
from engine.routing.snapshot import compile_snapshot
from engine.text.normalize import Normalizer

NORMALIZER = Normalizer(NormalizationSpec())
KNOWN = {t for text in ("my card", "transfer money", "paid twice", "the account", "a charge",
                         "going abroad", "work place", "hi", "re", "rip", "a count")
         for t in NORMALIZER.tokens(text)}
STOP = set(NORMALIZER.tokens("my the a to of"))
KNOWN_WORDS = KnownWords(KNOWN, STOP, NORMALIZER)


def mended(text: str) -> list[str] | None:
    return mend(text, KNOWN_WORDS)


def test_a_split_word_is_joined_with_the_next_or_the_one_before() -> None:
    assert mended("trans fer money") == NORMALIZER.tokens("transfer money")
    assert mended("money ac count") == NORMALIZER.tokens("money account")
    # the first half a known word, the second not: joined with the one before
    assert mended("paid the charg es") == NORMALIZER.tokens("paid the charges")


def test_a_stop_word_is_never_half_of_a_join() -> None:
    assert mended("give me a broad overview") is None  # "abroad" is known: still not said
    assert mended("the broad money") is None


def test_a_run_on_word_is_split_into_two_known_words() -> None:
    assert mended("mycard paid twice") == NORMALIZER.tokens("my card paid twice")
    assert mended("workplace money") == NORMALIZER.tokens("work place money")


def test_no_half_of_two_letters_is_cut_off_unless_it_is_a_stop_word() -> None:
    assert mended("hire a car") is None  # not "hi re"
    assert mended("strip") is None  # not "st rip"


def test_known_and_unmendable_words_are_left_alone() -> None:
    assert mended("my card") is None  # nothing to mend
    assert mended("zebra card qq") is None


@given(st.lists(st.sampled_from(["my", "card", "transfer", "money", "paid", "twice", "the"]),
                min_size=1, max_size=8))
def test_a_request_of_known_words_is_never_changed(words: list[str]) -> None:
    assert mended(" ".join(words)) is None


def _router(*, mend_words: bool) -> Router:
    agents = {
        "front": AgentSpec(name="front", peers=("*",), examples=("hello there", "good morning")),
        "payments": AgentSpec(name="payments", examples=(
            "I want to transfer money", "make a transfer to my sister", "transfer funds")),
        "cards": AgentSpec(name="cards", examples=(
            "my card is blocked", "order a new card", "card not working")),
    }
    settings = ExamplesSpec(min_score=0.0, margin=0.0, mend_words=mend_words)
    config = ConfigSet(engine=EngineSpec(name="t", entry="front", examples=settings),
                       agents=agents, capabilities={})
    return Router(compile_snapshot(config, version="t", root="<memory>"))


def test_the_router_scores_and_explains_the_mended_words() -> None:
    request = RouteRequest("front", "i need to trans fer some")
    decision = _router(mend_words=True).route(request)
    assert decision.target == "payments"
    assert decision.examples is not None
    assert "transfer" in dict(decision.examples.terms)
    assert decision.examples.mended == tuple(NORMALIZER.tokens("i need to transfer some"))
    assert decision.examples.to_dict()["mended"] == list(decision.examples.mended)
    assert "words mended:   'i need to transfer some'" in render_text(decision, explain=True)
    plain = _router(mend_words=True).route(RouteRequest("front", "i need to transfer some"))
    assert plain.examples is not None and plain.examples.mended is None  # nothing to mend
    unmended = _router(mend_words=False).route(request)
    assert unmended.examples is None or "transfer" not in dict(unmended.examples.terms)


class _Counting(Normalizer):
    """A normalizer that counts the words it normalizes one by one."""

    calls = 0

    def word(self, raw: str) -> tuple[str, ...]:
        type(self).calls += 1
        return super().word(raw)


def test_hostile_requests_cost_a_bounded_number_of_normalizations() -> None:
    counting = _Counting(NormalizationSpec())
    known = KnownWords(KNOWN, STOP, counting)
    long_word = "x" * 60_000
    many = " ".join(f"zq{n}" for n in range(5_000))
    for text in (long_word, f"my {long_word} card", many):
        _Counting.calls = 0
        assert mend(text, known) is None
        words = len(counting.words(text))
        # one look per written word, then at most MOST_MENDED words tried: two joins (three
        # normalizations each) and four normalizations per cut, at most LONGEST_WORD cuts
        assert _Counting.calls <= words + MOST_MENDED * (2 * 3 + 4 * LONGEST_WORD)
