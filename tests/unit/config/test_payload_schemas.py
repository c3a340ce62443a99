"""`accepts.payload_schema` from config: every `$ref` resolves inside the schema at check time
(or is a located `schema-ref` error), every pattern runs in linear time (or is a located
`unsupported-pattern` error), and checking never fetches a URL or reads a file it names."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.errors import ConfigError
from engine.issues import Issue
from engine.loading.loader import check_paths, load_config
from engine.runtime.engine import Engine
from engine.runtime.tools import handoff_tools
from tests.sandbox import RecordingServer, watch
from tests.unit.config.helpers import config_set

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: [b]\n"


def agent_b(schema: dict[str, object]) -> str:
    return "name: b\nhandoff: {trigger: go_b}\nterminal: true\naccepts:\n  payload_schema: " + (
        json.dumps(schema) + "\n"
    )


def card_ref(ref: str) -> dict[str, object]:
    return {"type": "object", "properties": {"card": {"$ref": ref}}}


def test_refs_that_leave_the_schema_are_located_errors_and_never_fetched(
    write_files: Write, tmp_path: Path
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text('{"type": "string", "description": "SECRET-VALUE"}', encoding="utf-8")
    with RecordingServer() as server:
        refs = [
            f"{server.url}/card.json",
            f"https://127.0.0.1:{server.url.rsplit(':', 1)[1]}/card.json",
            outside.as_uri(),
            "../agents/a.yaml",
            "#/definitions/nope",
        ]
        properties = {f"p{index}": {"$ref": ref} for index, ref in enumerate(refs)}
        schema = {"type": "object", "properties": properties}
        root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
        with watch() as activity:
            result = check_paths([root])
    assert [(issue.code, issue.file, issue.line) for issue in result.issues] == [
        ("schema-ref", str(root / "agents" / "b.yaml"), 5)
    ] * len(refs)
    assert sorted(issue.json_path for issue in result.issues) == [
        f"$.accepts.payload_schema.properties.p{i}['$ref']" for i in range(len(refs))
    ]
    assert server.hits == [] and activity.network == []
    assert activity.outside(root) == []
    assert all("SECRET-VALUE" not in issue.message for issue in result.issues)


def test_refs_inside_the_schema_load_and_reach_the_handoff_tools(write_files: Write) -> None:
    schema = {
        "$defs": {"last4": {"type": "string", "pattern": "^[0-9]{4}$"}},
        "type": "object",
        "properties": {"card": {"$ref": "#/$defs/last4"}},
        "required": ["card"],
    }
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
    [tool] = handoff_tools(load_config(root), "a")
    assert tool.parameters == schema


def test_an_engine_never_starts_on_a_schema_with_a_broken_ref(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(card_ref("https://example.com/x"))})
    with pytest.raises(ConfigError) as caught:
        Engine(root)
    assert [issue.code for issue in caught.value.issues] == ["schema-ref"]


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": "object", "properties": {"user": {"type": "string", "pattern": "^(?!admin)"}}},
         "$.accepts.payload_schema.properties.user.pattern"),
        (
            {"patternProperties": {"(x)\\1": {}}},
            "$.accepts.payload_schema.patternProperties['(x)\\\\1']",
        ),
        (
            {"patternProperties": {"^x": {}}, "unevaluatedProperties": False},
            "$.accepts.payload_schema.patternProperties['^x']",
        ),
    ],
)
def test_patterns_the_linear_engine_cannot_run_are_located_errors(
    write_files: Write, schema: dict[str, object], where: str
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
    [found] = check_paths([root]).issues
    assert (found.code, found.json_path, found.line) == ("unsupported-pattern", where, 5)


NODE = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}


def schema_issues(root: Path) -> list[Issue]:
    """The issues `check` reports on the payload schema (not the set's topology)."""
    return [issue for issue in check_paths([root]).issues if issue.code.startswith("schema-")]


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"$defs": {"n": {"anyOf": [NODE, {**NODE, "maxProperties": 9}]}}, "$ref": "#/$defs/n"},
         "$.accepts.payload_schema['$defs'].n.anyOf[0].properties.c['$ref']"),
        ({"$defs": {**{f"d{i}": {"oneOf": [{"$ref": f"#/$defs/d{i + 1}"},
                                           {"$ref": f"#/$defs/d{i + 1}", "maxLength": 3}]}
                       for i in range(12)}, "d12": {"type": "integer"}},
          "$ref": "#/$defs/d0"},
         "$.accepts.payload_schema"),
    ],
    ids=["recursive-any-of", "fan-out"],
)
def test_schemas_whose_check_cost_cannot_be_bounded_are_located_warnings(
    write_files: Write, schema: dict[str, object], where: str
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
    [found] = schema_issues(root)
    assert (found.code, found.severity.value, found.json_path, found.line) == (
        "schema-cost", "warning", where, 5)
    assert "budget" in found.message
    with Engine(root, sweep_interval_s=None) as engine:  # a warning: the agent is served
        assert engine.snapshot.agents["b"].accepts.payload_schema is not None
        assert [w.code for w in engine.snapshot.warnings if w.code.startswith("schema-")] == [
            "schema-cost"]


def test_a_reload_that_only_changes_an_agent_keeps_its_schema_warning(
    write_files: Write,
) -> None:
    growing = {"$defs": {"n": {"anyOf": [NODE, {**NODE, "maxProperties": 9}]}},
               "$ref": "#/$defs/n"}
    root = config_set(write_files, {"a": ENTRY, "b": agent_b({"type": "object"})})
    with Engine(root, sweep_interval_s=None) as engine:
        write_files({"agents/b.yaml": agent_b(growing)})
        assert engine.reload().outcome == "applied"
        assert "b" in engine.snapshot.agents
        assert [w.code for w in engine.snapshot.warnings if w.code.startswith("schema-")] == [
            "schema-cost"]


@pytest.mark.parametrize("schema", [
    {"anyOf": [{"type": "string"}, {"$ref": "#"}]},
    {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
     "properties": {"x": {"$ref": "#/$defs/a"}}},
], ids=["self", "through-two-defs"])
def test_a_ref_loop_on_one_value_is_a_located_error(
    write_files: Write, schema: dict[str, object]
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
    found = schema_issues(root)
    assert [(issue.code, issue.severity.value, issue.line) for issue in found] == [
        ("schema-loop", "error", 5)]
    assert found[0].json_path.endswith("['$ref']") and "without end" in found[0].message


def test_recursive_schemas_whose_cost_stays_bounded_pass_the_check(write_files: Write) -> None:
    tree = {"$defs": {"t": {"type": "object", "properties": {
        "v": {"type": "integer"}, "left": {"$ref": "#/$defs/t"}, "right": {"$ref": "#/$defs/t"}}}},
        "$ref": "#/$defs/t"}
    json_value = {"$defs": {"v": {"anyOf": [
        {"type": ["string", "number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": "#/$defs/v"}},
        {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}]}},
        "$ref": "#/$defs/v"}
    for schema in (tree, json_value):
        root = config_set(write_files, {"a": ENTRY, "b": agent_b(schema)})
        assert schema_issues(root) == []
