"""`unevaluatedProperties` and `unevaluatedItems` with `jsonschema`'s rules and wording, but
linear in the number of keys (sets, not lists), charged to the running check, and matching
`patternProperties` through the linear-time engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema.exceptions import ValidationError

from engine.validation.budget import charge
from engine.validation.patterns import PatternError, matches

_BRANCHES = ("allOf", "oneOf", "anyOf")


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _resolved(validator: Any, schema: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is not None:
            found = validator._resolver.lookup(ref)
            yield validator.evolve(schema=found.contents, _resolver=found.resolver), found.contents


def _matches_any(patterns: dict[str, Any], key: str) -> bool:
    try:
        return any(matches(pattern, key) for pattern in patterns)
    except PatternError:
        return False


def evaluated_keys(validator: Any, instance: Any, schema: Any) -> set[Any]:
    """The keys of object `instance` that `schema`'s keywords evaluate (for
    `unevaluatedProperties`), as `jsonschema` finds them."""
    charge(1)
    if not isinstance(schema, dict):
        return set()
    keys: set[Any] = set()
    for inner, contents in _resolved(validator, schema):
        keys |= evaluated_keys(inner, instance, contents)
    if isinstance(schema.get("properties"), dict):
        keys |= schema["properties"].keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (sub := schema.get(keyword)) is not None:
            keys |= {key for key, value in instance.items()
                     if _valid(validator.descend(value, sub))}
    if isinstance(schema.get("patternProperties"), dict):
        keys |= {key for key in instance if _matches_any(schema["patternProperties"], key)}
    for name, sub in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= evaluated_keys(validator, instance, sub)
    for keyword in _BRANCHES:
        for sub in schema.get(keyword, []):
            if _valid(validator.descend(instance, sub)):
                keys |= evaluated_keys(validator, instance, sub)
    for branch in _taken(validator, instance, schema):
        keys |= evaluated_keys(validator, instance, branch)
    return keys


def _taken(validator: Any, instance: Any, schema: dict[str, Any]) -> list[Any]:
    """The subschemas of `if`/`then`/`else` that evaluate `instance`."""
    if "if" not in schema:
        return []
    if validator.evolve(schema=schema["if"]).is_valid(instance):
        return [schema["if"], *([schema["then"]] if "then" in schema else [])]
    return [schema["else"]] if "else" in schema else []


def evaluated_indexes(validator: Any, instance: Any, schema: Any) -> set[int]:
    """The indexes of array `instance` that `schema`'s keywords evaluate (for
    `unevaluatedItems`), as `jsonschema` finds them."""
    charge(1)
    if not isinstance(schema, dict):
        return set()
    if "items" in schema:
        return set(range(len(instance)))
    indexes: set[int] = set()
    for inner, contents in _resolved(validator, schema):
        indexes |= evaluated_indexes(inner, instance, contents)
    if "prefixItems" in schema:
        indexes |= set(range(len(schema["prefixItems"])))
    for branch in _taken(validator, instance, schema):
        indexes |= evaluated_indexes(validator, instance, branch)
    for keyword in ("contains", "unevaluatedItems"):
        if keyword in schema:
            check = validator.evolve(schema=schema[keyword]).is_valid
            indexes |= {index for index, item in enumerate(instance) if check(item)}
    for keyword in _BRANCHES:
        for sub in schema.get(keyword, []):
            if _valid(validator.descend(instance, sub)):
                indexes |= evaluated_indexes(validator, instance, sub)
    return indexes


def _listed(extras: list[Any]) -> str:
    verb = "was" if len(extras) == 1 else "were"
    return f"{', '.join(repr(extra) for extra in extras)} {verb}"


def unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = evaluated_keys(validator, instance, schema)
    failed = [key for key in instance if key not in evaluated  # once per error, as jsonschema
              for _ in validator.descend(instance[key], unevaluated, path=key, schema_path=key)]
    if failed and unevaluated is False:
        extras = sorted(failed, key=str)
        yield ValidationError(f"Unevaluated properties are not allowed ({_listed(extras)} "
                              "unexpected)")
    elif failed:
        yield ValidationError("Unevaluated properties are not valid under the given schema "
                              f"({_listed(failed)} unevaluated and invalid)")


def unevaluated_items(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "array"):
        return
    evaluated = evaluated_indexes(validator, instance, schema)
    extras = [item for index, item in enumerate(instance) if index not in evaluated]
    if extras:
        yield ValidationError(f"Unevaluated items are not allowed ({_listed(extras)} "
                              "unexpected)")
