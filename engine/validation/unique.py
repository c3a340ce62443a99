"""`uniqueItems` in linear time: items compared through a hashable canonical form that is
equal exactly when JSON Schema calls two values equal (`1` and `1.0`, not `1` and `true`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from jsonschema._utils import equal as _equal
from jsonschema._utils import uniq
from jsonschema.exceptions import ValidationError

from engine.validation.budget import charge


def equal(one: Any, two: Any) -> bool:
    """JSON Schema's equality (`enum`, `const`): `jsonschema`'s own, for one pair."""
    return bool(_equal(one, two))


class _NoForm(Exception):
    """A value with no canonical form (not JSON data, or unhashable)."""


def canonical(value: Any) -> Any:
    """A hashable form of a JSON value: equal forms exactly for JSON Schema's equal values."""
    if value is True or value is False:
        return ("b", value)
    if value is None:
        return ("z",)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, int | float):
        return ("n", value)
    if isinstance(value, Mapping):
        return ("o", frozenset((key, canonical(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("a", tuple(canonical(item) for item in value))
    raise _NoForm


def all_unique(items: Sequence[Any]) -> bool:
    """Whether no two of `items` are equal, in time linear in their total size."""
    seen: set[Any] = set()
    try:
        for item in items:
            form = canonical(item)
            if form in seen:
                return False
            seen.add(form)
    except (_NoForm, TypeError):
        charge(len(items) * len(items))
        return bool(uniq(items))
    return True


def unique_items(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    """The `uniqueItems` keyword, with `jsonschema`'s own wording."""
    if unique and validator.is_type(instance, "array") and not all_unique(instance):
        yield ValidationError(f"{instance!r} has non-unique elements")
