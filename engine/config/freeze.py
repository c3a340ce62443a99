"""Deep-freezing of pass-through data (agent metadata, payload schemas, rule context values).

Mappings become read-only `MappingProxyType`s and lists become tuples; scalars are untouched.
Equal frozen parts are shared: thousands of agents written from one template repeat the same
payload schemas and metadata blocks, and read-only values can be one object. `thaw` is the
exact inverse, for dumping a config back to YAML or JSON. `Frozen` is the base of every
config model and `FrozenMapping` the field type of pass-through data.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainSerializer

SHARED_MAX = 50_000
"""Frozen parts remembered for sharing; the memory is forgotten at once when it is full."""
_shared: dict[int, Any] = {}
"""Hash of a part's identity -> the part (one per hash: a collision only shares less)."""
_strings: dict[tuple[str, ...], tuple[str, ...]] = {}
"""Tuples of strings, each its own key."""


def deep_freeze(value: Any) -> Any:
    """A read-only deep copy of plain YAML/JSON data."""
    kind = type(value)
    if kind is dict or (kind is not list and kind is not tuple and isinstance(value, Mapping)):
        frozen: Any = MappingProxyType({key: deep_freeze(item) for key, item in value.items()})
    elif kind is list or kind is tuple or isinstance(value, (list, tuple)):
        frozen = tuple([deep_freeze(item) for item in value])
    else:
        return value
    return _share(frozen)


def _identity(frozen: Any) -> tuple[Any, ...]:
    """What makes two frozen containers interchangeable: their children, a container child by
    identity (it is itself shared, and the container keeps it alive), a scalar by type and
    value (`1`, `1.0` and `True` are equal in Python but not in a config; `-0.0` is not
    `0.0`)."""
    if type(frozen) is tuple:
        return ("seq", *map(part, frozen))
    return ("map", *map(part, frozen.keys()), *map(part, frozen.values()))


def part(item: Any) -> tuple[Any, ...] | int:
    """An item's share in its container's identity (see `_identity`)."""
    kind = type(item)
    if kind is MappingProxyType or kind is tuple:
        return id(item)
    if kind is float:
        return float, repr(item)
    return kind, item


def _share(frozen: Any) -> Any:
    """The remembered container equal to `frozen`, else `frozen` (then remembered)."""
    return shared(frozen, _identity(frozen), _identity)


def shared(value: Any, identity: tuple[Any, ...], identify: Any) -> Any:
    """The remembered object whose `identify(object)` equals `identity`, else `value` (then
    remembered). An identity holding something that cannot be hashed (data built in
    Python) is never shared."""
    try:
        code = hash(identity)
    except TypeError:
        return value
    found = _shared.get(code)
    if found is not None and type(found) is type(value) and identify(found) == identity:
        return found
    if len(_shared) >= SHARED_MAX:
        _shared.clear()
    _shared[code] = value
    return value


def shared_tuple(value: tuple[Any, ...]) -> tuple[Any, ...]:
    """The remembered tuple equal to `value` (of scalars or shared parts), else `value`.
    A tuple of strings (names, keywords: nearly all a model holds) is its own identity:
    strings are equal only when they are the same text."""
    if all(type(item) is str for item in value):
        found = _strings.get(value)
        if found is not None:
            return found
        if len(_strings) >= SHARED_MAX:
            _strings.clear()
        _strings[value] = value
        return value
    return _share(value)  # type: ignore[no-any-return]


def thaw(value: Any) -> Any:
    """Plain, mutable dicts and lists again (the inverse of `deep_freeze`)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value


class Frozen(BaseModel):
    """Base of all config models: immutable, and unknown fields are a bug, not data."""

    model_config = ConfigDict(frozen=True, extra="forbid")


FrozenMapping = Annotated[
    Mapping[str, Any],
    AfterValidator(deep_freeze),
    PlainSerializer(thaw, return_type=dict),
]
"""Pass-through data (metadata, payload schemas, context values): deep-frozen on validation,
dumped as plain dicts and lists."""
