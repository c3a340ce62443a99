"""Values quoted in messages: repr when short, cut when long, and cheap however large."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.validation.shown import SHOWN_CHARS, quoted, short_repr
from engine.validation.unique import equal

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner) | st.dictionaries(
        st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


class Endless(Mapping[str, int]):
    """A mapping of a million entries that counts how many it was asked for."""

    def __init__(self) -> None:
        self.read = 0

    def __getitem__(self, key: str) -> int:
        return 0

    def __iter__(self) -> Iterator[str]:
        for index in range(1_000_000):
            self.read += 1
            yield f"k{index}"

    def __len__(self) -> int:
        return 1_000_000


@settings(max_examples=300, deadline=None)
@given(value=JSON)
def test_short_values_are_their_repr_and_long_ones_a_cut_prefix(value: Any) -> None:
    shown, whole = short_repr(value), repr(value)
    if len(whole) <= SHOWN_CHARS:
        assert shown == whole
    else:
        assert len(shown) == SHOWN_CHARS and shown.endswith("...")


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_quoted_values_equal_the_originals_and_quote_themselves_cut(value: Any) -> None:
    copy = quoted(value)
    assert equal(copy, value)  # JSON Schema's equality: tuples are arrays
    assert repr(copy) == short_repr(copy)


def test_quoting_a_huge_value_reads_only_its_start() -> None:
    endless = Endless()
    assert len(short_repr(endless)) == SHOWN_CHARS and endless.read < SHOWN_CHARS
    assert short_repr(["x" * 10**6]) == "['" + "x" * (SHOWN_CHARS - 5) + "..."
    assert short_repr(2**5000) == "<integer of 5001 bits>"
    nested: list[Any] = []
    for _ in range(10_000):
        nested = [nested]
    assert short_repr(nested).startswith("[[[[")
