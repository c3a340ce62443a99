"""Finding, loading and validating against the bundled canonical schemas (seed 003 API).

Schemas are package data under `engine/_schemas/specs/`, read through `engine.config.schemas`.
`load_schema` hands out one read-only view per schema and layout, built on the first call (so
later calls cost O(1), and no caller can corrupt what the next one sees). Formats are checked,
`date-time` as ISO 8601 with the offset optional (as the spec models read it). Never writes
files.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any, Literal

import jsonschema
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator

from engine.config import schemas as bundled
from engine.config.schemas import bundled_registry, schema_root
from engine.errors import (
    SchemaNotFoundError,
    SchemaParseError,
    SchemaValidationError,
    UsageError,
)
from engine.specs.models.common import parse_date_time
from engine.specs.views import inlined, read_only
from engine.validation.validators import SafeValidator, format_checker

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:
    from importlib.abc import Traversable

SUFFIX = ".json"
SPECS = "specs"
ERROR_SCHEMA = "agent_error_taxonomy_v1"
ERROR_INSTANCE = "error_instance"
"""The `$defs` entry of `agent_error_taxonomy_v1` that one runtime error validates against."""
Layout = Literal["inline", "refs"]
"""How `load_schema` writes nested schemas: `inline` in place (the aumai-specs layout, which
code walking `properties` expects), or `refs` as the bundled file does (`$ref` into `$defs`)."""
LAYOUTS = ("inline", "refs")


def _folder() -> Traversable:
    return schema_root() / SPECS


def list_schemas() -> list[str]:
    """Names of all bundled canonical schemas, sorted, without the file extension."""
    return list(_names())


@cache
def _names() -> tuple[str, ...]:
    """The bundled names, listed once: package data does not change while running."""
    return tuple(sorted(
        entry.name[: -len(SUFFIX)]
        for entry in _folder().iterdir()
        if entry.name.endswith(SUFFIX) and entry.is_file()
    ))


def _bundled_name(schema_name: str) -> str:
    """The schema's name in the bundled-schema store, after checking that it exists."""
    if not isinstance(schema_name, str) or schema_name not in _names():
        raise SchemaNotFoundError(str(schema_name), list_schemas())
    return f"{SPECS}/{schema_name}{SUFFIX}"


def get_schema_path(schema_name: str) -> Path:
    """The absolute filesystem path of a schema file. Raises `SchemaNotFoundError`."""
    return Path(str(schema_root() / _bundled_name(schema_name))).resolve()


def load_schema(schema_name: str, *, layout: Layout = "inline") -> dict[str, Any]:
    """The named schema, as one read-only view shared by every caller: the first call parses
    and builds it, later calls cost O(1). A change raises `TypeError`; `copy.deepcopy(schema)`
    gives a mutable copy. `layout="inline"` (the default) writes nested schemas in place,
    as the aumai-specs files did; `layout="refs"` is the bundled file (`$ref` into `$defs`).

    Raises `SchemaNotFoundError`, `SchemaParseError`, or `UsageError` for an unknown layout.
    """
    name = _bundled_name(schema_name)
    if layout not in LAYOUTS:
        raise UsageError(f"layout must be one of {', '.join(map(repr, LAYOUTS))}, not {layout!r}")
    return _view(name, layout)


@cache
def _view(name: str, layout: Layout) -> dict[str, Any]:
    parsed = bundled.load_schema(name)
    view: dict[str, Any] = read_only(inlined(parsed) if layout == "inline" else parsed)
    return view


def _spec_formats() -> FormatChecker:
    checker = format_checker()
    checker.checks("date-time")(
        lambda value: not isinstance(value, str) or parse_date_time(value) is not None)
    return checker


def validator_for(schema_name: str, definition: str | None = None) -> Validator:
    """A cached Draft 2020-12 validator for the named schema (or one of its `$defs`), with
    formats checked. Raises `SchemaNotFoundError` or `SchemaParseError`."""
    _bundled_name(schema_name)
    return _validator(schema_name, definition)


@cache
def _validator(schema_name: str, definition: str | None) -> Validator:
    schema = bundled.load_schema(_bundled_name(schema_name))  # the file's layout: error paths
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise SchemaParseError(get_schema_path(schema_name), error) from error
    if definition is not None:
        if definition not in schema.get("$defs", {}):
            raise SchemaNotFoundError(f"{schema_name}#/$defs/{definition}")
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"],
                  "$ref": f"#/$defs/{definition}"}
    return SafeValidator(schema, registry=bundled_registry(), format_checker=_spec_formats())


def validate(data: Any, schema_name: str) -> bool:
    """Validate `data` against the named schema; True, or raise `SchemaValidationError`
    (its `validation_error` is the most relevant `jsonschema` error) or
    `SchemaNotFoundError`."""
    _raise_first(validator_for(schema_name), data, schema_name)
    return True


def validate_error(data: Any) -> bool:
    """Validate one runtime error (an `AgentError` dump) against the `error_instance`
    definition of `agent_error_taxonomy_v1`; True, or raise `SchemaValidationError`."""
    _raise_first(validator_for(ERROR_SCHEMA, ERROR_INSTANCE), data,
                 f"{ERROR_SCHEMA}#/$defs/{ERROR_INSTANCE}")
    return True


def _raise_first(validator: Validator, data: Any, label: str) -> None:
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        raise SchemaValidationError(error, label)


def validate_quietly(data: Any, schema_name: str) -> tuple[bool, str]:
    """Like `validate` but never raises: `(True, "")` or `(False, message)`."""
    try:
        validate(data, schema_name)
    except (SchemaValidationError, SchemaNotFoundError, SchemaParseError) as error:
        return False, str(error)
    return True, ""
