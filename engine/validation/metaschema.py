"""Fast meta-validation of user-written JSON Schemas (agent `accepts.payload_schema`).

The Draft 2020-12 meta-schema is split into seven vocabularies joined by `$dynamicRef`, which
jsonschema resolves at every step (milliseconds per schema). Here the vocabularies are merged
once into one equivalent self-referencing schema (about 5x faster). When the bundled
meta-schemas do not have the expected shape, the stock `check_schema` path is used instead.
Patterns (`format: regex`) are not judged here: `engine.validation.audit` reports each one.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from engine.validation.compiled import metaschema_check

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

BASE = "https://json-schema.org/draft/2020-12/"
VOCABULARIES = (
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "content",
)
_DROPPED = frozenset({"$id", "$schema", "$vocabulary", "$dynamicAnchor", "title", "$comment"})


def _rewrite(node: Any) -> Any:
    """Point every `$dynamicRef: #meta` at the merged root and vocabulary refs at its $defs."""
    if isinstance(node, list):
        return [_rewrite(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$dynamicRef" and value == "#meta":
            out["$ref"] = "#"
        elif key == "$ref" and isinstance(value, str) and "#/$defs/" in value:
            out["$ref"] = "#/$defs/" + value.split("#/$defs/", 1)[1]
        else:
            out[key] = _rewrite(value)
    return out


def merged_metaschema() -> dict[str, Any] | None:
    """The 2020-12 meta-schema as one schema, or None if its parts are not as expected."""
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    root = REGISTRY.contents(BASE + "schema")
    merged: dict[str, Any] = {"type": ["object", "boolean"], "properties": {}, "$defs": {}}
    parts = [REGISTRY.contents(f"{BASE}meta/{name}") for name in VOCABULARIES]
    if len(root.get("allOf", ())) != len(parts):
        return None
    for part in [*parts, {k: v for k, v in root.items() if k != "allOf"}]:
        for key, value in _rewrite(part).items():
            if key in _DROPPED:  # identity and annotations of the part itself
                continue
            if key in ("properties", "$defs"):
                if set(value) & set(merged[key]):
                    return None
                merged[key].update(value)
            elif key != "type":
                return None
    return merged


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # the pure path: only for an invalid schema

    from engine.validation.refs import LOCAL_ONLY
    from engine.validation.validators import SCHEMA_FORMATS

    schema = merged_metaschema()
    if schema is None:
        schema = Draft202012Validator.META_SCHEMA
    return Draft202012Validator(schema, format_checker=SCHEMA_FORMATS, registry=LOCAL_ONLY)


def schema_error(schema: Any) -> tuple[tuple[str | int, ...], str] | None:
    """(path inside `schema`, message) of its most relevant meta-schema error, or None."""
    fast = metaschema_check()
    if fast is not None and fast(schema):
        return None
    from jsonschema.exceptions import best_match

    validator = _validator()
    error = best_match(validator.iter_errors(schema))
    if error is None:
        return None
    return tuple(error.absolute_path), error.message
