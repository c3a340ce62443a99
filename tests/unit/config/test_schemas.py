"""The bundled schemas: package data, documented, self-consistent, and in step with the models."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.config.models import AgentSpec, CapabilitySpec, Condition, EngineSpec, RuleSpec
from engine.config.schemas import load_schema, schema_root, validator_for
from engine.errors import SchemaNotFoundError
from tests.unit.config.helpers import subschemas

CONFIG_SCHEMAS = [
    "engine.schema.json",
    "agent.schema.json",
    "capabilities.schema.json",
    "routing.schema.json",
]


def properties(schema: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (path, property name, property schema) in a schema, recursively."""
    for where, node in subschemas(schema):
        for name, body in node.get("properties", {}).items():
            yield where, name, body


@pytest.mark.parametrize("name", CONFIG_SCHEMAS)
def test_schema_is_a_documented_draft_2020_12_schema(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/" + name)
    assert schema["description"] and schema["examples"]
    assert schema["additionalProperties"] is False
    for where, prop, body in properties(schema):
        assert body.get("description"), f"{name}: {where}.{prop} has no description"
    for example in schema["examples"]:
        assert list(validator_for(name).iter_errors(example)) == []


@pytest.mark.parametrize("name", CONFIG_SCHEMAS)
def test_every_object_with_properties_forbids_unknown_keys(name: str) -> None:
    def objects(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if "properties" in node and node.get("type") == "object":
                yield node
            for key, value in node.items():
                if key not in ("examples", "default"):
                    yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    for node in objects(load_schema(name)):
        assert node.get("additionalProperties") is False, sorted(node["properties"])


def test_schemas_are_read_as_package_data_and_handed_out_as_copies() -> None:
    assert (schema_root() / "agent.schema.json").is_file()
    first = load_schema("agent.schema.json")
    first["properties"].clear()
    assert load_schema("agent.schema.json")["properties"]
    assert json.loads((schema_root() / "agent.schema.json").read_text("utf-8")) == load_schema(
        "agent.schema.json"
    )


@pytest.mark.parametrize("name", ["nope.json", "../pyproject.toml", "/etc/passwd", ""])
def test_unknown_or_escaping_schema_names_are_refused(name: str) -> None:
    with pytest.raises(SchemaNotFoundError):
        load_schema(name)


def keys_of(model: type[Any]) -> set[str]:
    return {field.alias or name for name, field in model.model_fields.items()} - {"source"}


FILE_SPELLINGS = {"handoff_trigger", "tools", "prompt", "prompts"}
"""Agent-file keys the build stage moves onto other fields: handoff_trigger (deprecated) onto
handoff.trigger, tools onto tool_names, prompt and prompts onto prompt_template/prompt_path."""


def test_agent_schema_and_model_agree() -> None:
    schema = load_schema("agent.schema.json")
    assert set(schema["properties"]) - FILE_SPELLINGS == keys_of(AgentSpec) - {"prompt_path"}
    for key in ("handoff", "accepts", "context", "model", "voice"):
        model = AgentSpec.model_fields[key].annotation
        assert set(schema["properties"][key]["properties"]) == keys_of(model), key  # type: ignore[arg-type]


def test_routing_capabilities_engine_schemas_and_models_agree() -> None:
    routing = load_schema("routing.schema.json")["$defs"]
    assert set(routing["rule"]["properties"]) == keys_of(RuleSpec)
    assert set(routing["condition"]["properties"]) == keys_of(Condition)
    capability = load_schema("capabilities.schema.json")["$defs"]["capability"]
    assert set(capability["properties"]) | {"name"} == keys_of(CapabilitySpec)
    engine = load_schema("engine.schema.json")
    assert set(engine["properties"]) - {"include"} == keys_of(EngineSpec)
    policies = EngineSpec.model_fields["policies"].annotation
    assert set(engine["properties"]["policies"]["properties"]) == keys_of(policies)  # type: ignore[arg-type]
