"""Strict-mode tool parameters: closed objects, every property required, optional ones nullable;
None where strict mode cannot say what the schema says; the model's nulls dropped again."""

from __future__ import annotations

from typing import Any

import pytest

from engine.adapters.strict import drop_strict_nulls, strict_parameters

SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["reason"],
    "properties": {
        "reason": {"type": "string"},
        "level": {"type": "string", "enum": ["low", "high"]},
        "card": {"type": "object", "properties": {"last4": {"type": "string"}}},
    },
}


def test_objects_are_closed_and_optional_properties_nullable() -> None:
    strict = strict_parameters(SCHEMA)
    assert strict is not None
    assert strict["additionalProperties"] is False
    assert strict["required"] == ["reason", "level", "card"]
    assert strict["properties"]["reason"] == {"type": "string"}
    assert strict["properties"]["level"] == {
        "anyOf": [{"type": "string", "enum": ["low", "high"]}, {"type": "null"}]}
    card = strict["properties"]["card"]
    assert card["type"] == ["object", "null"] and card["additionalProperties"] is False
    assert card["properties"]["last4"]["type"] == ["string", "null"]
    assert SCHEMA["properties"]["reason"] == {"type": "string"}  # the input is left as it was


@pytest.mark.parametrize("schema", [
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "additionalProperties": True},
    {"type": "object", "properties": {"x": {"type": "object", "additionalProperties": {}}}},
    {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
], ids=["not-an-object", "open", "open-nested", "pattern-properties"])
def test_schemas_strict_mode_cannot_express_stay_non_strict(schema: dict[str, Any]) -> None:
    assert strict_parameters(schema) is None


def test_nulls_for_optional_properties_are_dropped_required_ones_kept() -> None:
    payload = {"reason": None, "level": None, "card": {"last4": None}, "other": None}
    assert drop_strict_nulls(SCHEMA, payload) == {"reason": None, "card": {}, "other": None}


def test_a_function_definition_is_strict_where_the_schema_allows_it_and_says_so() -> None:
    from engine.adapters.strict import function_definition
    from engine.runtime.tools import HandoffTool

    tool = HandoffTool("handoff_x", "x", "Hand off to x.", SCHEMA)
    strict = function_definition(tool, strict=True)
    assert strict == {"name": "handoff_x", "description": "Hand off to x.",
                      "parameters": strict_parameters(SCHEMA), "strict": True}
    assert function_definition(tool, strict=False)["strict"] is False
    assert function_definition(tool, strict=False)["parameters"] == SCHEMA
    open_tool = HandoffTool("handoff_y", "y", "", {"type": "object",
                                                   "additionalProperties": True})
    assert function_definition(open_tool, strict=True)["strict"] is False  # not expressible
