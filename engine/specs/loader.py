"""Finding, loading and validating against the bundled canonical schemas (seed 003 API).

Schemas are package data under `engine/_schemas/specs/`, read through `engine.config.schemas`.
The parsed text is cached, but every `load_schema` call hands out a fresh copy, so no caller
can corrupt what the next one sees. Never writes files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.protocols import Validator

from engine.config import schemas as bundled
from engine.config.schemas import schema_root
from engine.errors import SchemaNotFoundError, SchemaParseError, SchemaValidationError

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:
    from importlib.abc import Traversable

SUFFIX = ".json"
SPECS = "specs"


def _folder() -> Traversable:
    return schema_root() / SPECS


def list_schemas() -> list[str]:
    """Names of all bundled canonical schemas, sorted, without the file extension."""
    return sorted(
        entry.name[: -len(SUFFIX)]
        for entry in _folder().iterdir()
        if entry.name.endswith(SUFFIX) and entry.is_file()
    )


def _bundled_name(schema_name: str) -> str:
    """The schema's name in the bundled-schema store, after checking that it exists."""
    if not isinstance(schema_name, str) or schema_name not in list_schemas():
        raise SchemaNotFoundError(str(schema_name), list_schemas())
    return f"{SPECS}/{schema_name}{SUFFIX}"


def get_schema_path(schema_name: str) -> Path:
    """The absolute filesystem path of a schema file. Raises `SchemaNotFoundError`."""
    return Path(str(schema_root() / _bundled_name(schema_name))).resolve()


def load_schema(schema_name: str) -> dict[str, Any]:
    """The named schema as a new dict (the parse is cached; mutating the result is safe).

    Raises `SchemaNotFoundError` or `SchemaParseError`.
    """
    return bundled.load_schema(_bundled_name(schema_name))


def validator_for(schema_name: str) -> Validator:
    """A Draft 2020-12 validator for the named schema, with `format` really checked."""
    return bundled.validator_for(_bundled_name(schema_name))


def validate(data: Any, schema_name: str) -> bool:
    """Validate `data` against the named schema; True, or raise `SchemaValidationError`
    (its `validation_error` is the most relevant `jsonschema` error) or
    `SchemaNotFoundError`."""
    error = jsonschema.exceptions.best_match(validator_for(schema_name).iter_errors(data))
    if error is not None:
        raise SchemaValidationError(error, schema_name)
    return True


def validate_quietly(data: Any, schema_name: str) -> tuple[bool, str]:
    """Like `validate` but never raises: `(True, "")` or `(False, message)`."""
    try:
        validate(data, schema_name)
    except (SchemaValidationError, SchemaNotFoundError, SchemaParseError) as error:
        return False, str(error)
    return True, ""
