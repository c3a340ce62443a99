"""The bundled JSON Schemas, read as package data, their cached validators and `$id` registry.

Schemas are read with `importlib.resources` from `engine/_schemas` (never relative to
`__file__`). Callers get deep copies; the cached dicts are never handed out to be mutated.
A `$ref` to a bundled schema's `$id` resolves from the package; any other URI never resolves.
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
    from referencing import Registry, Resource

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # pragma: no cover - Python 3.10
    from importlib.abc import Traversable

SCHEMA_BASE = "https://handoff-engine.dev/schemas/v1/"
"""The `$id` prefix of the config schemas: `v1` is the config format's `version: 1`, so the
URLs stay the same across releases that keep the format."""
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
    return safe_validator(schema, registry=bundled_registry())


def bundled_files() -> list[str]:
    """Every bundled schema file, as a name `load_schema` takes: top level, then `specs/`."""
    root = schema_root()
    top = sorted(e.name for e in root.iterdir() if e.name.endswith(".json") and e.is_file())
    specs = root / "specs"
    nested = sorted(f"specs/{e.name}" for e in specs.iterdir() if e.name.endswith(".json"))
    return top + nested


@cache
def _file_by_id() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in bundled_files():
        schema_id = _cached_schema(name).get("$id")
        if isinstance(schema_id, str):
            found[schema_id.rstrip("#")] = name
    return found


@cache
def bundled_registry() -> Registry[Any]:
    """A registry in which the bundled schemas' `$id`s resolve from the package, lazily, and
    nothing else resolves: `$ref`s between bundled schemas work offline, nothing is fetched."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT202012

    def retrieve(uri: str) -> Resource[Any]:
        name = _file_by_id().get(uri.rstrip("#"))
        if name is None:
            raise NoSuchResource(ref=uri)  # type: ignore[call-arg]
        return DRAFT202012.create_resource(load_schema(name))

    return Registry(retrieve=retrieve)  # type: ignore[call-arg]


@cache
def fast_check_for(name: str) -> Check | None:
    """A compiled `is_valid` for bundled schema `name` (None: only the pure validator). The
    bundled schemas themselves are checked by the test suite and by `validator_for`."""
    return compile_check(_cached_schema(name))
