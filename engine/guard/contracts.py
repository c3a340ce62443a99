"""What a guard checks data against: a pydantic model class or a JSON Schema mapping.

`as_contract` turns either into a `Contract` that reports failures as `ViolationContext`s, at
most `LISTED_VIOLATIONS` plus one that says there are more. A JSON Schema check runs within a
work budget (`engine.validation.budget`). Retrying and on-fail handling are the guard's
business, not this module's.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

import jsonschema
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from engine.errors import UsageError
from engine.guard.core import ViolationContext
from engine.guard.jsondata import Uncarried, uncarried
from engine.guard.suggestions import suggest
from engine.validation.audit import schema_findings
from engine.validation.checker import SchemaCheck
from engine.validation.cost import cost_findings
from engine.validation.metaschema import schema_error
from engine.validation.validators import SafeValidator

MISSING = "<missing>"
ROOT = "<root>"
LISTED_VIOLATIONS = 10
"""Violations a refusal lists; a check returns at most one more, to say there are more."""
PART_CHARS = 64
"""Longest key shown in a field path (a longer one is cut, with `...`)."""
PATH_CHARS = 200
"""Longest field path (a longer one keeps its end, after `...`)."""

Schema = type[BaseModel] | Mapping[str, Any]


class Contract(Protocol):
    """Checks one value; an empty list means valid. `validated` is the typed value."""

    def check(
        self, data: Any, node_name: str, contract_type: str
    ) -> tuple[Any, list[ViolationContext]]: ...


def _dotted(path: Iterable[Any]) -> str:
    parts = (str(part) for part in path)
    text = ".".join(p if len(p) <= PART_CHARS else p[: PART_CHARS - 3] + "..." for p in parts)
    if len(text) > PATH_CHARS:
        return "..." + text[3 - PATH_CHARS :]
    return text or ROOT


def value_at(data: Any, path: Sequence[Any]) -> Any:
    """The value at `path` inside dicts, lists and objects, or `<missing>`."""
    current = data
    for part in path:
        if isinstance(current, Mapping):
            current = current.get(part, MISSING)
        elif isinstance(current, list | tuple) and isinstance(part, int):
            current = current[part] if -len(current) <= part < len(current) else MISSING
        elif isinstance(part, str) and hasattr(current, part):
            current = getattr(current, part)
        else:
            return MISSING
    return current


class PydanticContract:
    """Validates dicts, models and plain objects against a pydantic model class."""

    __slots__ = ("model",)

    def __init__(self, model: type[BaseModel]) -> None:
        self.model = model

    def check(
        self, data: Any, node_name: str, contract_type: str
    ) -> tuple[Any, list[ViolationContext]]:
        if isinstance(data, BaseModel):
            data = data.model_dump()
        elif not isinstance(data, Mapping) and hasattr(data, "__dict__"):
            data = vars(data)
        try:
            return self.model.model_validate(data), []
        except ValidationError as error:
            return None, [_from_pydantic(item, data, node_name, contract_type)
                          for item in error.errors()[: LISTED_VIOLATIONS + 1]]


def _from_pydantic(
    item: Any, data: Any, node_name: str, contract_type: str
) -> ViolationContext:
    loc = tuple(item["loc"])
    field_path = _dotted(loc)
    received = value_at(data, loc)
    return ViolationContext(
        node_name=node_name,
        contract_type=contract_type,
        field_path=field_path,
        expected=str(item["msg"]),
        received=received,
        received_type=type(received).__name__,
        suggestion=suggest("pydantic", str(item["type"]), field_path, contract_type),
    )


def thaw(value: Any) -> Any:
    """A plain dict/list copy of a mapping tree (config schemas arrive as read-only views)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value


def _is_object(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, Mapping)


def _is_array(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, list | tuple)


_MappingAwareValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    SafeValidator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"object": _is_object, "array": _is_array}
    ),
)
"""Draft 2020-12 as `SafeValidator` runs it (linear-time patterns, refs never fetched), but
read-only views (mappings, tuples) count as objects and arrays."""


class JSONSchemaContract:
    """Validates JSON-shaped data against a Draft 2020-12 schema, formats checked, within a
    work budget. A schema whose refs lead outside it, whose patterns cannot run in linear
    time or whose refs loop on one value is refused. Data JSON cannot carry (NaN, infinity,
    keys that are not text, nesting past `jsondata.MAX_DEPTH`) is refused before the schema is
    applied, as `Engine.handoff` refuses it."""

    __slots__ = ("schema_check",)

    def __init__(self, schema: Mapping[str, Any]) -> None:
        plain = thaw(schema)
        error = schema_error(plain)
        if error is not None:
            raise UsageError(f"guard schema is not a valid JSON Schema: {error[1]}")
        findings = schema_findings(plain) or [
            finding for finding in cost_findings(plain) if finding.kind == "loop"]
        if findings:
            raise UsageError(f"guard schema refused: {findings[0].message}")
        self.schema_check = SchemaCheck(plain, base=_MappingAwareValidator)

    def check(
        self, data: Any, node_name: str, contract_type: str
    ) -> tuple[Any, list[ViolationContext]]:
        if isinstance(data, BaseModel):
            data = data.model_dump(mode="json")
        problem = uncarried(data)
        if problem is not None:
            return data, [_from_uncarried(problem, data, node_name, contract_type)]
        found = self.schema_check.check(data, most=LISTED_VIOLATIONS + 1)
        errors = sorted(found.errors, key=lambda e: list(e.absolute_path))
        violations = [_from_schema(error, data, node_name, contract_type) for error in errors]
        if found.stopped is not None:
            violations.append(_stopped(found.stopped, data, node_name, contract_type))
        return data, violations


def _from_uncarried(
    problem: Uncarried, data: Any, node_name: str, contract_type: str
) -> ViolationContext:
    field_path = _dotted(problem.path)
    received = value_at(data, problem.path)
    return ViolationContext(
        node_name=node_name,
        contract_type=contract_type,
        field_path=field_path,
        expected=problem.problem,
        received=received,
        received_type=type(received).__name__,
        suggestion=problem.fix.format(field=field_path),
    )


def _stopped(limit: int, data: Any, node_name: str, contract_type: str) -> ViolationContext:
    return ViolationContext(
        node_name=node_name,
        contract_type=contract_type,
        field_path=ROOT,
        expected=f"checking it needs more than the work budget of {limit} units; send a "
        "smaller or simpler value",
        received=data,
        received_type=type(data).__name__,
    )


def _missing_name(error: jsonschema.ValidationError) -> str | None:
    instance, rule = error.instance, cast(Any, error.validator_value)
    if error.validator == "required" and isinstance(instance, Mapping):
        return next((n for n in rule if n not in instance), None)
    if error.validator == "dependentRequired" and isinstance(instance, Mapping):
        needed = (n for deps in rule.values() for n in deps)
        return next((n for n in needed if n not in instance), None)
    return None


def _from_schema(
    error: jsonschema.ValidationError, data: Any, node_name: str, contract_type: str
) -> ViolationContext:
    path = list(error.absolute_path)
    missing = _missing_name(error)
    received: Any = value_at(data, path)  # the caller's own value, not the quoted copy
    if missing is not None:
        path.append(missing)
        received = MISSING
    field_path = _dotted(path)
    return ViolationContext(
        node_name=node_name,
        contract_type=contract_type,
        field_path=field_path,
        expected=error.message,
        received=received,
        received_type=type(received).__name__,
        suggestion=suggest("schema", str(error.validator), field_path, contract_type),
    )


@functools.lru_cache(maxsize=256)
def _compiled(schema_text: str) -> JSONSchemaContract:
    return JSONSchemaContract(json.loads(schema_text))


def as_contract(schema: Schema) -> Contract:
    """A contract for a pydantic model class or a JSON Schema mapping.

    JSON Schema contracts are compiled once per distinct schema content and reused, so
    validating each handoff payload against its agent's schema stays cheap.
    """
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return PydanticContract(schema)
    if isinstance(schema, Mapping):
        try:
            text = json.dumps(thaw(schema), sort_keys=True)
        except (TypeError, ValueError) as error:
            raise UsageError(f"guard schema is not JSON data: {error}") from error
        return _compiled(text)
    raise UsageError(
        f"a guard schema must be a pydantic model class or a JSON Schema mapping, "
        f"not {type(schema).__name__}"
    )
