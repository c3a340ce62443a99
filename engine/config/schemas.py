"""The bundled JSON Schemas, read as package data, and their cached validators.

Schemas are read with `importlib.resources` from `engine/_schemas` (never relative to
`__file__`). Callers get deep copies; the cached dicts are never handed out to be mutated.
"""

from __future__ import annotations

import copy
import json
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import SchemaNotFoundError, SchemaParseError
from engine.validation.compiled import Check, compile_check

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # pragma: no cover - Python 3.10
    from importlib.abc import Traversable

ENGINE_SCHEMA = "engine.schema.json"
AGENT_SCHEMA = "agent.schema.json"
CAPABILITIES_SCHEMA = "capabilities.schema.json"
ROUTING_SCHEMA = "routing.schema.json"
SCHEMA_BY_KIND: dict[str, str] = {
    "agents": AGENT_SCHEMA,
    "capabilities": CAPABILITIES_SCHEMA,
    "routing": ROUTING_SCHEMA,
}


def schema_root() -> Traversable:
    """The folder of bundled schemas (works from a checkout and from an installed wheel)."""
    return resources.files("engine") / "_schemas"


def _resource(name: str) -> Traversable:
    node = schema_root()
    for part in name.split("/"):
        if part in ("", ".", ".."):
            raise SchemaNotFoundError(name)
        node = node / part
    if not node.is_file():
        raise SchemaNotFoundError(name)
    return node


@cache
def _cached_schema(name: str) -> dict[str, Any]:
    node = _resource(name)
    try:
        schema = json.loads(node.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SchemaParseError(Path(str(node)), error) from error
    if not isinstance(schema, dict):
        raise SchemaParseError(Path(str(node)), ValueError("a schema must be a JSON object"))
    return schema


def load_schema(name: str) -> dict[str, Any]:
    """A fresh copy of the bundled schema `name` (e.g. "agent.schema.json")."""
    return copy.deepcopy(_cached_schema(name))


@cache
def validator_for(name: str) -> Validator:
    """A cached Draft 2020-12 validator for schema `name`: real format checks, patterns run by
    the linear-time engine (`$` only at the end of the text), refs never fetched."""
    from jsonschema import Draft202012Validator  # only for located errors: not at start-up
    from jsonschema.exceptions import SchemaError

    from engine.validation.validators import safe_validator

    schema = _cached_schema(name)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise SchemaParseError(Path(str(_resource(name))), error) from error
    return safe_validator(schema)


@cache
def fast_check_for(name: str) -> Check | None:
    """A compiled `is_valid` for bundled schema `name` (None: only the pure validator). The
    bundled schemas themselves are checked by the test suite and by `validator_for`."""
    return compile_check(_cached_schema(name))
