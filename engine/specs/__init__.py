"""Canonical specs (seed 003): the bundled schemas, their loader, and pydantic models.

`list_schemas`, `load_schema`, `validate`, `validate_quietly`, `get_schema_path`, the three
spec errors, `parse_spec` for typed access with every cross-field rule enforced, and
`to_agent_error` to express any engine error as an error-taxonomy instance, and capsule
helpers (`new_capsule_id`, `seal`, `verify`).
"""

from typing import Any

from pydantic import BaseModel, ValidationError

from engine.errors import SchemaNotFoundError, SchemaParseError, SchemaValidationError
from engine.specs.capsules import new_capsule_id, seal, verify
from engine.specs.loader import (
    get_schema_path,
    list_schemas,
    load_schema,
    validate,
    validate_quietly,
)
from engine.specs.models import MODEL_BY_SCHEMA
from engine.specs.taxonomy import to_agent_error


def parse_spec(data: Any, schema_name: str) -> BaseModel:
    """Validate `data` against the schema, then build its typed model (which also checks the
    rules JSON Schema cannot express). Raises `SchemaValidationError` or
    `SchemaNotFoundError`; a model-only rule failure is a `SchemaValidationError` whose
    `validation_error` is the pydantic `ValidationError`."""
    validate(data, schema_name)
    try:
        return MODEL_BY_SCHEMA[schema_name].model_validate(data)
    except ValidationError as error:
        raise SchemaValidationError(_ModelRuleError(error), schema_name) from error


class _ModelRuleError:
    """Adapts a pydantic error to the `message` / `absolute_path` shape of a jsonschema one."""

    def __init__(self, error: ValidationError) -> None:
        first = error.errors()[0]
        self.absolute_path = [part for part in first["loc"]]
        self.message = str(first["msg"]).removeprefix("Value error, ")
        self.error = error


__all__ = [
    "SchemaNotFoundError",
    "SchemaParseError",
    "SchemaValidationError",
    "get_schema_path",
    "list_schemas",
    "load_schema",
    "new_capsule_id",
    "parse_spec",
    "seal",
    "to_agent_error",
    "validate",
    "validate_quietly",
    "verify",
]
