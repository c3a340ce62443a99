"""Typed access to canonical documents: schema validation first, then the pydantic model.

The model adds the rules JSON Schema cannot express; its failures are reported as the same
`SchemaValidationError` the schema stage raises.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from engine.errors import SchemaValidationError
from engine.specs.loader import validate
from engine.specs.models import MODEL_BY_SCHEMA


def parse_spec(data: Any, schema_name: str) -> BaseModel:
    """Validate `data` against the schema, then build its typed model (which also checks the
    rules JSON Schema cannot express). Raises `SchemaValidationError` or
    `SchemaNotFoundError`. For a model-only rule, `validation_error` has the `message` and
    `absolute_path` of a jsonschema error plus the pydantic `ValidationError` as `.error`."""
    validate(data, schema_name)
    try:
        return MODEL_BY_SCHEMA[schema_name].model_validate(data)
    except ValidationError as error:
        raise SchemaValidationError(_ModelRuleError(error), schema_name) from error


class _ModelRuleError:
    """Adapts a pydantic error to the `message` / `absolute_path` shape of a jsonschema one."""

    def __init__(self, error: ValidationError) -> None:
        first = error.errors()[0]
        self.absolute_path = list(first["loc"])
        self.message = str(first["msg"]).removeprefix("Value error, ")
        self.error = error
