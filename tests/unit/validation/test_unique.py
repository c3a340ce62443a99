"""`uniqueItems` through canonical forms: the same verdicts as comparing every pair with
jsonschema's JSON equality (its own `uniq` compares sorted neighbours, and misses two equal
items that sort apart: `[(False,), (0,), (False,)]`)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema._utils import equal

from engine.validation.budget import BudgetExceeded, spending
from engine.validation.unique import all_unique, canonical
from engine.validation.validators import safe_validator

SCALARS = st.none() | st.booleans() | st.sampled_from([0, 1, 1.0, 0.0, -1, 2**53, 2.5]) | (
    st.sampled_from(["", "a", "1", "true"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(
        st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(items=st.lists(VALUES, max_size=6))
def test_the_same_verdict_as_pairwise_comparison(items: list[Any]) -> None:
    pairwise = not any(equal(items[i], items[j])
                       for i in range(len(items)) for j in range(i + 1, len(items)))
    assert all_unique(items) is pairwise


def test_equal_items_that_sort_apart_are_found() -> None:
    assert not all_unique([(False,), (0,), (False,)])


def test_json_equality_is_what_the_forms_compare() -> None:
    assert canonical(1) == canonical(1.0) and canonical(True) != canonical(1)
    assert canonical({"a": 1, "b": [False]}) == canonical({"b": [False], "a": 1.0})
    assert canonical([1, "x"]) == canonical((1, "x"))
    assert canonical({"a": 0}) != canonical({"a": False})


def test_the_keyword_keeps_jsonschemas_wording() -> None:
    validator = safe_validator({"uniqueItems": True})
    [error] = validator.iter_errors([{"a": 1}, {"a": 1.0}])
    assert error.message == "[{'a': 1}, {'a': 1.0}] has non-unique elements"
    assert validator.is_valid([1, True, "1"])


def test_values_outside_json_compare_pairwise_and_pay_for_it() -> None:
    assert not all_unique([date(2024, 1, 1), date(2024, 1, 1)])
    assert all_unique([[date(2024, 1, 1)], {"d": {1, 2}}])
    with spending(None), pytest.raises(BudgetExceeded):
        all_unique([{"s": {index}} for index in range(1_000)])  # a million comparisons
