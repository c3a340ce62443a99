"""A setting given as one of an enum's values: the member, or a UsageError naming the choices."""

from __future__ import annotations

import enum
from typing import TypeVar

from engine.errors import UsageError

E = TypeVar("E", bound=enum.Enum)


def member_of(kind: type[E], value: E | str, what: str) -> E:
    """`value` as a member of `kind`; a `UsageError` saying which values `what` takes."""
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(repr(item.value) for item in kind)
        raise UsageError(f"{what} must be one of {names}, got {value!r}") from None
