"""Ahead-of-time schema audit: refs resolve inside the schema or are reported; patterns run in
linear time or are reported; nothing is ever fetched while auditing."""

from __future__ import annotations

from typing import Any

import pytest

from engine.validation.audit import schema_findings
from tests.sandbox import RecordingServer, watch


def kinds(schema: Any) -> list[tuple[tuple[str | int, ...], str]]:
    return [(finding.path, finding.kind) for finding in schema_findings(schema)]


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"a": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"definitions": {"a": True}, "items": {"$ref": "#/definitions/a"}},
        {"$ref": "#"},
        {"$defs": {"a": {"$anchor": "here"}}, "not": {"$ref": "#here"}},
        {"$id": "https://example.com/s", "$defs": {"a": {}}, "$ref": "https://example.com/s#/$defs/a"},
        {"$defs": {"n": {"$id": "node", "$defs": {"b": {}}, "$ref": "#/$defs/b"}}},
        {"$dynamicAnchor": "meta", "items": {"$dynamicRef": "#meta"}},
        {"properties": {"$ref": {"type": "string"}, "pattern": {"const": "(?=x)"}}},
        {"examples": [{"$ref": "http://example.com/"}], "type": "object"},
        {"pattern": "^[a-z]+$", "patternProperties": {"^x_": {"pattern": "\\d"}}},
    ],
)
def test_schemas_whose_refs_stay_inside_and_patterns_are_linear_are_clean(schema: Any) -> None:
    assert schema_findings(schema) == []


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("http://127.0.0.1:9/schema.json", "leads outside this schema"),
        ("https://example.com/schema.json", "leads outside this schema"),
        ("file:///etc/passwd", "leads outside this schema"),
        ("other.json", "leads outside this schema"),
        ("other.json#/$defs/a", "leads outside this schema"),
        ("#/definitions/nope", "points at nothing"),
        ("#missing-anchor", "points at nothing"),
        ("#/examples/0", "points at data that is not a subschema"),
    ],
)
def test_refs_that_leave_the_schema_or_lead_nowhere_are_located(ref: str, why: str) -> None:
    schema = {"examples": [{"type": "bogus"}], "properties": {"card": {"$ref": ref}}}
    [finding] = schema_findings(schema)
    assert finding.path == ("properties", "card", "$ref")
    assert finding.kind == "ref"
    assert ref in finding.message and why in finding.message


def test_a_ref_relative_to_a_nested_id_is_resolved_against_that_id() -> None:
    schema = {"$defs": {"n": {"$id": "https://example.com/node", "$ref": "leaf"}}}
    assert kinds(schema) == [(("$defs", "n", "$ref"), "ref")]


def test_every_problem_of_a_schema_is_reported() -> None:
    schema = {
        "properties": {
            "a": {"$ref": "#/nope"},
            "b": {"prefixItems": [{"pattern": "(?<=x)y"}]},
            "c": {"anyOf": [{"pattern": "ok"}, {"$ref": "https://x.test/"}]},
        },
        "patternProperties": {"(a)\\1": {}},
    }
    assert sorted(kinds(schema)) == [
        (("patternProperties", "(a)\\1"), "pattern"),
        (("properties", "a", "$ref"), "ref"),
        (("properties", "b", "prefixItems", 0, "pattern"), "pattern"),
        (("properties", "c", "anyOf", 1, "$ref"), "ref"),
    ]


def test_pattern_properties_beside_unevaluated_properties_are_refused() -> None:
    """jsonschema matches them with Python's backtracking `re` while it evaluates
    unevaluatedProperties; the engine cannot route that through the linear-time engine."""
    schema = {"patternProperties": {"^x-": {}}, "unevaluatedProperties": False}
    [finding] = schema_findings(schema)
    assert finding.path == ("patternProperties", "^x-")
    assert "unevaluatedProperties" in finding.message


def test_auditing_fetches_nothing_and_reads_no_file(tmp_path: Any) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "TOKEN-123"}', encoding="utf-8")
    with RecordingServer() as server, watch() as activity:
        schema = {
            "properties": {
                "a": {"$ref": f"{server.url}/a.json"},
                "b": {"$ref": secret.as_uri()},
                "c": {"$ref": "secret.json"},
            }
        }
        findings = schema_findings({"$id": tmp_path.as_uri() + "/", **schema})
    assert [finding.kind for finding in findings] == ["ref", "ref", "ref"]
    assert server.hits == []
    assert activity.network == []
    assert str(secret) not in activity.opened
    assert all("TOKEN-123" not in finding.message for finding in findings)
