"""The work budget of one check of a value against a user-written schema: counted in units
(about one keyword applied to one value), never timed; past it, `BudgetExceeded`. Owns no
validation logic: validators `charge` what they do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from typing import Any

BASE_UNITS = 10_000
"""Units every check may spend, whatever the size of the value. A unit is about one keyword
applied to one value by the pure validator (1 to 10 microseconds): one per keyword, plus one
per container entry and per 64 characters it reads, one per 16 `enum` members, one per 8
entries of a container copied to be quoted, and for a caller's text compiled as a pattern, 50
plus 10 per character."""
UNITS_PER_SIZE = 4
"""Units a check may spend per unit of the value's size."""
MAX_UNITS = 100_000
"""Units no check spends more than, however large the value."""
CHARS_PER_UNIT = 64
"""Characters of a string that cost one unit to read."""


class BudgetExceeded(Exception):
    """A check needed more than `limit` units of work (internal signal, never shown as is)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} units of work")
        self.limit = limit


def size_of(value: Any) -> int:
    """The size of a JSON-like value in units: one per value, plus one per entry of each
    container, plus one per `CHARS_PER_UNIT` characters of each string and key."""
    size, stack = 0, [value]
    while stack:
        item = stack.pop()
        size += 1
        if isinstance(item, str):
            size += len(item) // CHARS_PER_UNIT
        elif isinstance(item, Mapping):
            size += len(item)
            for key, child in item.items():
                size += len(key) // CHARS_PER_UNIT if isinstance(key, str) else 0
                stack.append(child)
        elif isinstance(item, list | tuple):
            size += len(item)
            stack.extend(item)
    return size


def allowance(size: int) -> int:
    """How many units the check of a value of `size` units may spend."""
    return min(MAX_UNITS, BASE_UNITS + UNITS_PER_SIZE * size)


class Budget:
    """The units one check has spent and may spend. The value is sized only when the check
    spends more than `BASE_UNITS` (most never do), then its allowance applies."""

    __slots__ = ("_value", "exceeded", "limit", "spent")

    def __init__(self, value: Any) -> None:
        self.limit = BASE_UNITS
        self.spent = 0
        self.exceeded = False
        self._value: Any = value

    def cap(self, units: int) -> None:
        """Allow at most `units` more, whatever the value's size."""
        self.limit, self._value = self.spent + units, None

    def charge(self, units: int) -> None:
        self.spent += units
        if self.spent > self.limit:
            self._overdrawn()

    def _overdrawn(self) -> None:
        if self._value is not None:
            self.limit, self._value = allowance(size_of(self._value)), None
            if self.spent <= self.limit:
                return
        self.exceeded = True
        raise BudgetExceeded(self.limit)


_ACTIVE: ContextVar[Budget | None] = ContextVar("engine_check_budget", default=None)


def charge(units: int) -> None:
    """Count `units` of work against the check running in this context (none: free)."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.charge(units)


def charge_reading(value: Any) -> None:
    """Count one keyword applied to `value`: one unit, plus what reading the value costs."""
    budget = _ACTIVE.get()
    if budget is None:
        return
    if isinstance(value, str):
        budget.charge(1 + len(value) // CHARS_PER_UNIT)
    elif isinstance(value, dict | list | tuple):
        budget.charge(1 + len(value))
    else:
        budget.charge(1)


def charge_copying(value: Any) -> None:
    """Count copying a container (a unit per 8 entries) or a long string (per 512 characters):
    a copy costs far less than a keyword, but a large value's copy is not free."""
    budget = _ACTIVE.get()
    if budget is not None:
        size = len(value) // (512 if isinstance(value, str) else 8)
        if size or not isinstance(value, str):
            budget.charge(1 + size)


@contextlib.contextmanager
def spending(value: Any) -> Iterator[Budget]:
    """The budget of checking `value`, active in this context for the block. A check that
    starts inside another one (a nested contract) spends from the outer budget."""
    active = _ACTIVE.get()
    if active is not None:
        yield active
        return
    budget = Budget(value)
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)
