"""The JSON Schema validator class every user-written and bundled schema is compiled with.

Draft 2020-12 with four changes: `pattern`, `patternProperties` and `additionalProperties`
match through the linear-time engine (`engine.validation.patterns`), the `regex` format is
checked by that engine too (never keeping the caller's pattern), `uniqueItems` and the
`unevaluated*` keywords run in linear time (`engine.validation.unique`, `.unevaluated`), and
`$ref`s resolve against `LOCAL_ONLY` (never fetched).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from referencing import Registry

from engine.validation.patterns import PatternError, is_regex, matches
from engine.validation.refs import LOCAL_ONLY
from engine.validation.unevaluated import unevaluated_items, unevaluated_properties
from engine.validation.unique import unique_items


def _safe_matches(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches `text`; None for a pattern the engine refuses."""
    try:
        return matches(pattern, text)
    except PatternError:
        return None


def pattern_matches(pattern: str, text: str) -> bool:
    """The `pattern` keyword's verdict: `pattern` matches somewhere in `text`."""
    return bool(_safe_matches(pattern, text))


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _safe_matches(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = _safe_matches(pattern, key)
            if found is None:
                yield ValidationError(f"pattern {pattern!r} cannot run in linear time")
                return
            if found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [
        key
        for key in instance
        if key not in properties and not any(_safe_matches(p, key) for p in patterns)
    ]


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:  # jsonschema's own wording
        listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            patterns = ", ".join(repr(p) for p in sorted(schema["patternProperties"]))
            yield ValidationError(f"{listed} {verb} not match any of the regexes: {patterns}")
        else:
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} "
                                  "unexpected)")


def _is_regex(instance: object) -> bool:
    return not isinstance(instance, str) or is_regex(instance)


def format_checker(*, regex: bool = True) -> FormatChecker:
    """Draft 2020-12's format checks, with `regex` judged by the linear-time engine (or, with
    `regex=False`, not at all: a caller that reports patterns itself)."""
    checker = FormatChecker(())
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    del checker.checkers["regex"]
    if regex:
        checker.checks("regex")(_is_regex)
    return checker


SAFE_FORMATS = format_checker()
"""Format checks for instances: `regex` judged by the linear-time engine."""
SCHEMA_FORMATS = format_checker(regex=False)
"""Format checks for a schema itself: its patterns are judged by `engine.validation.audit`."""

SafeValidator: type[Validator] = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    validators={
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "uniqueItems": unique_items,
        "unevaluatedProperties": unevaluated_properties,
        "unevaluatedItems": unevaluated_items,
    },
)
"""Draft 2020-12 with linear-time patterns and `uniqueItems`; build instances with
`safe_validator`."""


def safe_validator(
    schema: Any, *, cls: type[Validator] = SafeValidator, registry: Registry[Any] = LOCAL_ONLY
) -> Validator:
    """A validator for `schema` that checks formats, never fetches, and never backtracks.
    `registry` says which `$ref` URIs resolve (default: none outside `schema`)."""
    return cls(schema, registry=registry, format_checker=SAFE_FORMATS)
