"""Sharing equal parts of built config models: a 10,000-agent set written from one template
would otherwise hold 10,000 equal context policies, `from` lists and fields-set markers. Works
on models just built, before anyone else holds them; never changes what a model says.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine.config.freeze import part, shared, shared_tuple
from engine.config.models import Frozen, SourceRef

_FIELD_SETS: dict[frozenset[str], set[str]] = {}
_set = object.__setattr__
M = TypeVar("M", bound=Frozen)


def shared_fields(model: M) -> M:
    """`model` with its parts shared with equal ones built before: a 10,000-agent set written
    from one template would otherwise hold 10,000 equal context policies, `from` lists and
    fields-set markers (pydantic gives every instance a set of its own). The models inside it
    and its tuples become the remembered equal ones (see `freeze.shared`). Safe because the
    models are frozen: pydantic adds to the marker only when setting an attribute, and
    `model_copy` gives the copy a set of its own. Call it on a model no one else holds yet."""
    fields = model.__dict__
    for name, value in fields.items():
        kind = type(value)
        if kind is tuple:
            if value:  # the empty tuple is one object already
                fields[name] = shared_tuple(value)
        elif kind is SourceRef:  # a place in a file: never equal to another's
            shared_fields(value)
        elif isinstance(value, Frozen):
            fields[name] = _shared_model(shared_fields(value))
    given = model.__pydantic_fields_set__
    _set(model, "__pydantic_fields_set__", _FIELD_SETS.setdefault(frozenset(given), given))
    return model


def _model_identity(model: Frozen) -> tuple[Any, ...]:
    """What makes two frozen models interchangeable: type, fields-set marker, field values
    (parts already shared by identity, scalars by type and value)."""
    parts = [id(v) if isinstance(v, Frozen) else part(v) for v in model.__dict__.values()]
    return (type(model), id(model.__pydantic_fields_set__), *parts)  # the marker is shared


def _shared_model(model: M) -> M:
    return shared(model, _model_identity(model), _model_identity)  # type: ignore[no-any-return]
