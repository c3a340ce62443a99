"""Deep-freezing of pass-through data (agent metadata, payload schemas, rule context values).

Mappings become read-only `MappingProxyType`s and lists become tuples; scalars are untouched.
`thaw` is the exact inverse, for dumping a config back to YAML or JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


def deep_freeze(value: Any) -> Any:
    """A read-only deep copy of plain YAML/JSON data."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: deep_freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(deep_freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """Plain, mutable dicts and lists again (the inverse of `deep_freeze`)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value
