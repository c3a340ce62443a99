"""The merged 2020-12 meta-schema gives the same verdicts as jsonschema's stock check.

Patterns (`format: regex`) are left to the pattern audit (`engine.validation.audit`), which
judges them in the engine's linear-time dialect; the stock check here skips them too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.validation.audit import schema_findings
from engine.validation.metaschema import merged_metaschema, schema_error
from engine.validation.validators import SCHEMA_FORMATS
from tests.conftest import REPO

STOCK = Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=SCHEMA_FORMATS)
BUNDLED = [json.loads(path.read_text("utf-8")) for path in sorted(REPO.glob("schemas/**/*.json"))]
SAMPLES: list[Any] = [
    True,
    False,
    3,
    "x",
    {},
    {
        "type": "object",
        "required": ["a"],
        "properties": {"a": {"type": "string", "format": "email"}},
    },
    {"type": "strng"},
    {"properties": {"a": {"minimum": "x"}}},
    {"required": "a"},
    {"$ref": 3},
    {"items": {"type": ["string", "bogus"]}},
    {"pattern": "("},
    {"patternProperties": {"(": {}}},
    {"additionalProperties": 5},
    {"dependentSchemas": {"a": 1}},
    {"minItems": -1},
    {"format": 3},
    {"$defs": {"x": {"type": "nope"}}},
    {"anyOf": []},
    {"prefixItems": [{"enum": 5}]},
    {"unevaluatedProperties": 3},
    {"contentMediaType": 1},
    {"deprecated": "x"},
    {"definitions": {"a": 3}},
    {"dependencies": {"a": 3}},
    {"dependencies": {"a": ["b", "b"]}},
    {"$anchor": "1x"},
    {"$schema": "not a uri"},
    {"title": 3},
    {"$comment": 3},
    {"$id": 3},
    {"$vocabulary": 3},
    {"examples": 3},
    {"readOnly": 1},
    {"contentSchema": 3},
    {"$recursiveRef": 3},
    {"enum": []},
    {"const": None},
    {"properties": {"a": {"properties": {"b": {"type": "bogus"}}}}},
    {"$defs": {"a": {"$defs": {"b": {"minLength": -3}}}}},
]


def test_the_bundled_meta_schemas_have_the_expected_shape() -> None:
    merged = merged_metaschema()
    assert merged is not None
    Draft202012Validator.check_schema(merged)
    assert {"$schema", "title", "properties", "unevaluatedItems", "dependencies"} <= set(
        merged["properties"]
    )


@pytest.mark.parametrize("schema", BUNDLED + SAMPLES)
def test_same_verdict_as_the_stock_meta_schema(schema: Any) -> None:
    assert (schema_error(schema) is None) is STOCK.is_valid(schema)


@pytest.mark.parametrize("schema", [{"pattern": "("}, {"patternProperties": {"(?=x)": {}}}])
def test_patterns_are_left_to_the_pattern_audit(schema: Any) -> None:
    assert schema_error(schema) is None
    assert [finding.kind for finding in schema_findings(schema)] == ["pattern"]


def test_error_path_and_message_match_check_schema() -> None:
    schema = {"properties": {"a": {"type": "strng"}}}
    with pytest.raises(Exception) as caught:
        Draft202012Validator.check_schema(schema)
    stock = caught.value
    assert schema_error(schema) == (tuple(stock.absolute_path), stock.message)  # type: ignore[attr-defined]


def test_the_meta_schema_files_read_directly_are_the_registrys() -> None:
    """Start-up reads the package's data files instead of importing its registry: same content."""
    import jsonschema_specifications

    from engine.validation.metaschema import BASE, VOCABULARIES, _official

    root, parts = _official()
    assert root == jsonschema_specifications.REGISTRY.contents(BASE + "schema")
    assert parts == [
        jsonschema_specifications.REGISTRY.contents(f"{BASE}meta/{name}") for name in VOCABULARIES
    ]
