"""Fast meta-validation of user-written JSON Schemas (agent `accepts.payload_schema`).

The Draft 2020-12 meta-schema is split into seven vocabularies joined by `$dynamicRef`, which
jsonschema resolves at every step (milliseconds per schema). Here the vocabularies are merged
once into one equivalent self-referencing schema (about 5x faster). When the bundled
meta-schemas do not have the expected shape, the stock `check_schema` path is used instead.
Patterns (`format: regex`) are not judged here: `engine.validation.audit` reports each one.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
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


def _official() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The 2020-12 meta-schema and its vocabularies as `jsonschema-specifications` ships them:
    read as its data files (importing it builds a registry of every draft: slow at start-up),
    or through its registry when its files are not laid out as expected."""
    spec = importlib.util.find_spec("jsonschema_specifications")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    try:
        base = Path(folders[0]) / "schemas" / "draft202012"
        root = json.loads((base / "metaschema.json").read_text(encoding="utf-8"))
        parts = [json.loads((base / "vocabularies" / name).read_text(encoding="utf-8"))
                 for name in VOCABULARIES]
    except (IndexError, OSError, ValueError):
        from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

        root = REGISTRY.contents(BASE + "schema")
        parts = [REGISTRY.contents(f"{BASE}meta/{name}") for name in VOCABULARIES]
    if root.get("$id") != BASE + "schema":
        raise ValueError("not the 2020-12 meta-schema")
    return root, parts


def merged_metaschema() -> dict[str, Any] | None:
    """The 2020-12 meta-schema as one schema, or None if its parts are not as expected."""
    try:
        root, parts = _official()
    except ValueError:
        return None
    merged: dict[str, Any] = {"type": ["object", "boolean"], "properties": {}, "$defs": {}}
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
