"""The pure validator of user-written schemas, bounded: every keyword it applies is charged to
the running check's budget, `anyOf`/`oneOf`/`not` keep no branch errors, values are quoted cut,
and `locate` returns at most the errors asked for, each cut to `MESSAGE_CHARS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator

from engine.validation.budget import BudgetExceeded, charge, charge_copying, charge_reading
from engine.validation.shown import quoted, short_repr
from engine.validation.unique import equal

MESSAGE_CHARS = 300
"""Longest message of one located error."""

Keyword = Callable[[Any, Any, Any, Any], Any]


def _any_of(validator: Any, branches: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    for index, branch in enumerate(branches):
        if next(validator.descend(instance, branch, schema_path=index), None) is None:
            return
    yield ValidationError(f"{instance!r} is not valid under any of the given schemas")


def _one_of(validator: Any, branches: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    valid = [branch for index, branch in enumerate(branches)
             if next(validator.descend(instance, branch, schema_path=index), None) is None]
    if not valid:
        yield ValidationError(f"{instance!r} is not valid under any of the given schemas")
    elif len(valid) > 1:
        shown = ", ".join(short_repr(branch) for branch in [*valid[1:], valid[0]])
        yield ValidationError(f"{instance!r} is valid under each of {shown}")


def _not(validator: Any, not_schema: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.evolve(schema=not_schema).is_valid(instance):
        yield ValidationError(f"{instance!r} should not be valid under {short_repr(not_schema)}")


def _enum(validator: Any, members: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    charge(len(members) // 16)
    if all(not equal(member, instance) for member in members):
        yield ValidationError(f"{instance!r} is not one of {short_repr(members)}")


def _const(validator: Any, const: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not equal(instance, const):
        yield ValidationError(f"{short_repr(const)} was expected")


_QUIET = {"anyOf": _any_of, "oneOf": _one_of, "not": _not, "enum": _enum, "const": _const}


def _charged(keyword: Keyword) -> Keyword:
    def charged(validator: Any, value: Any, instance: Any, schema: Any) -> Any:
        charge_reading(instance)
        return keyword(validator, value, instance, schema)

    return charged


def bounded(base: type[Validator]) -> type[Validator]:
    """`base` with every keyword charged and `anyOf`/`oneOf`/`not`/`enum`/`const` quiet."""
    keywords = {**base.VALIDATORS, **_QUIET}
    return validators.extend(  # type: ignore[no-untyped-call, no-any-return]
        base, validators={name: _charged(keyword) for name, keyword in keywords.items()}
    )


@dataclass(frozen=True, slots=True)
class Located:
    """What a check found: `errors` (at most the number asked for), whether there are `more`,
    and the budget it ran out of (`stopped`, None when it finished)."""

    errors: tuple[ValidationError, ...] = ()
    more: bool = False
    stopped: int | None = None


def locate(validator: Validator, instance: Any, *, most: int) -> Located:
    """Up to `most` errors of `instance` (quoted cut), each message cut to `MESSAGE_CHARS`;
    stops early when the running check's budget is spent (copying the value is charged too)."""
    found: list[ValidationError] = []
    try:
        for error in validator.iter_errors(quoted(instance, read=charge_copying)):
            if len(found) == most:
                return Located(tuple(found), more=True)
            if len(error.message) > MESSAGE_CHARS:
                error.message = error.message[: MESSAGE_CHARS - 3] + "..."
            found.append(error)
    except BudgetExceeded as exceeded:
        return Located(tuple(found), stopped=exceeded.limit)
    return Located(tuple(found))
