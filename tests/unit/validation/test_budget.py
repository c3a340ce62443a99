"""The work budget of a check: counted units, an allowance linear in the value, a hard cap."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from engine.validation import budget
from engine.validation.budget import (
    BASE_UNITS,
    MAX_UNITS,
    UNITS_PER_SIZE,
    BudgetExceeded,
    allowance,
    charge,
    size_of,
    spending,
)


class CountedItems(Mapping[str, Any]):
    """A mapping that counts how many times it was walked."""

    def __init__(self, items: dict[str, Any]) -> None:
        self.items_ = items
        self.walks = 0

    def __getitem__(self, key: str) -> Any:
        return self.items_[key]

    def __iter__(self) -> Iterator[str]:
        self.walks += 1
        return iter(self.items_)

    def __len__(self) -> int:
        return len(self.items_)


def test_size_counts_values_entries_and_characters() -> None:
    assert size_of(None) == 1
    assert size_of("x" * 130) == 1 + 2
    assert size_of({"k": [1, 2]}) == 1 + 1 + (1 + 2) + 2
    assert size_of({"k" * 64: "v"}) == 1 + 1 + 1 + 1


def test_allowance_is_linear_in_the_size_and_capped() -> None:
    assert allowance(0) == BASE_UNITS
    assert allowance(1_000) == BASE_UNITS + UNITS_PER_SIZE * 1_000
    assert allowance(10**9) == MAX_UNITS


def test_charges_outside_a_check_are_free() -> None:
    charge(10 * MAX_UNITS)  # nothing runs: nothing to refuse


def test_a_check_may_spend_its_allowance_and_not_one_unit_more() -> None:
    value = ["x"] * 5_000
    limit = allowance(size_of(value))
    with spending(value) as spent:
        charge(limit)
        with pytest.raises(BudgetExceeded) as caught:
            charge(1)
    assert caught.value.limit == limit and spent.exceeded
    with spending(value), pytest.raises(BudgetExceeded):
        charge(MAX_UNITS + 1)


def test_the_value_is_sized_only_once_the_base_is_spent() -> None:
    value = CountedItems({"a": 1, "b": [1, 2, 3]})
    with spending(value):
        charge(BASE_UNITS)
        assert value.walks == 0
        charge(size_of({"a": 1, "b": [1, 2, 3]}))
        assert value.walks == 1
        charge(1)
        assert value.walks == 1


def test_a_nested_check_spends_from_the_outer_budget() -> None:
    with spending([1]) as outer:
        charge(5)
        with spending("another value") as inner:
            charge(7)
        assert inner is outer and outer.spent == 12


def test_each_thread_checks_with_its_own_budget() -> None:
    seen: list[int] = []

    def other() -> None:
        with spending(None) as mine:
            charge(3)
            seen.append(mine.spent)

    with spending(None) as main:
        charge(BASE_UNITS)
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen == [3] and main.spent == BASE_UNITS


def test_the_budget_is_gone_once_the_check_ends() -> None:
    with spending(None):
        pass
    assert budget._ACTIVE.get() is None
