"""Canonical specs (seed 003): the bundled schemas, their loader, and pydantic models.

`list_schemas`, `load_schema`, `validate`, `validate_quietly`, `get_schema_path`, the three
spec errors, `parse_spec` for typed access with every cross-field rule enforced,
`validate_error` for one runtime error, `to_agent_error` to express any engine error as one,
`engine_taxonomy()` (the engine's codes as a catalogue), and capsule helpers
(`new_capsule_id`, `seal`, `verify`).
"""

from engine.errors import SchemaNotFoundError, SchemaParseError, SchemaValidationError
from engine.specs.capsules import new_capsule_id, seal, verify
from engine.specs.loader import (
    get_schema_path,
    list_schemas,
    load_schema,
    validate,
    validate_error,
    validate_quietly,
)
from engine.specs.taxonomy import engine_taxonomy, to_agent_error
from engine.specs.typed import parse_spec

__all__ = [
    "SchemaNotFoundError",
    "SchemaParseError",
    "SchemaValidationError",
    "engine_taxonomy",
    "get_schema_path",
    "list_schemas",
    "load_schema",
    "new_capsule_id",
    "parse_spec",
    "seal",
    "to_agent_error",
    "validate",
    "validate_error",
    "validate_quietly",
    "verify",
]
