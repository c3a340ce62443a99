"""Strict-mode tool parameters (OpenAI structured outputs) from a payload schema, and the way
back: strict mode wants every object closed (`additionalProperties: false`) and every property
required, so optional properties become nullable and a `null` the model sends for one is
dropped before the engine checks the payload against the schema as written. Also the function
definition the adapters hand a framework that passes `strict` on to the model. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.config.freeze import thaw
from engine.runtime.tools import HandoffTool

_OPEN_OBJECT_KEYS = ("patternProperties", "unevaluatedProperties", "propertyNames",
                     "dependentRequired", "dependentSchemas", "minProperties", "maxProperties")
"""Keywords that let an object hold properties it does not list: strict mode cannot say that."""
_CHILD_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_CHILD_MAPS = ("$defs", "definitions")


class _NotStrict(Exception):
    """The schema says something strict mode cannot express."""


def strict_parameters(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """`schema` in strict form, or None when strict mode cannot express it (the top level is
    not an object, or an object admits properties it does not list): use it non-strict then."""
    if schema.get("type") != "object":
        return None
    try:
        strict: dict[str, Any] = _strict(thaw(schema))
    except _NotStrict:
        return None
    return strict


def function_definition(tool: HandoffTool, *, strict: bool) -> dict[str, Any]:
    """`tool` as a function definition (`name`, `description`, `parameters`, `strict`: the body
    of an OpenAI Chat Completions tool, or a flat Responses one). With `strict`, in strict form
    where its payload schema allows it; otherwise as written with `strict: false`, which the
    Responses API (strict by default) needs for a schema with optional properties."""
    parameters = strict_parameters(tool.parameters) if strict else None
    return {"name": tool.name, "description": tool.description,
            "parameters": parameters if parameters is not None else thaw(tool.parameters),
            "strict": parameters is not None}


def drop_strict_nulls(schema: Mapping[str, Any], payload: Any) -> Any:
    """`payload` without the `null`s strict mode made the model send for properties `schema`
    leaves optional (recursively through nested objects and arrays)."""
    if isinstance(payload, list):
        items = schema.get("items")
        return [drop_strict_nulls(items, item) if isinstance(items, Mapping) else item
                for item in payload]
    if not isinstance(payload, dict):
        return payload
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return payload
    required = set(schema.get("required") or ())
    kept = {}
    for name, value in payload.items():
        if value is None and name in properties and name not in required:
            continue
        child = properties.get(name)
        kept[name] = drop_strict_nulls(child, value) if isinstance(child, Mapping) else value
    return kept


def _strict(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out = dict(node)
    for key in _CHILD_LISTS:
        if isinstance(node.get(key), list):
            out[key] = [_strict(child) for child in node[key]]
    for key in _CHILD_MAPS:
        if isinstance(node.get(key), dict):
            out[key] = {name: _strict(child) for name, child in node[key].items()}
    if isinstance(node.get("items"), dict):
        out["items"] = _strict(node["items"])
    if node.get("type") == "object" or "properties" in node:
        out.update(_closed_object(node))
    return out


def _closed_object(node: dict[str, Any]) -> dict[str, Any]:
    """The object's strict keywords: closed, every property required, optional ones nullable."""
    if node.get("additionalProperties", False) is not False or any(
        key in node for key in _OPEN_OBJECT_KEYS
    ):
        raise _NotStrict
    properties = node.get("properties") or {}
    required = set(node.get("required") or ())
    strict = {name: _strict(child) if name in required else _nullable(_strict(child))
              for name, child in properties.items()}
    return {"properties": strict, "required": list(strict), "additionalProperties": False}


def _nullable(node: Any) -> Any:
    """`node`, also accepting `null`."""
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if isinstance(kind, str) and "enum" not in node and "const" not in node:
        return {**node, "type": [kind, "null"]} if kind != "null" else node
    if isinstance(kind, list) and "enum" not in node and "const" not in node:
        return node if "null" in kind else {**node, "type": [*kind, "null"]}
    return {"anyOf": [node, {"type": "null"}]}
