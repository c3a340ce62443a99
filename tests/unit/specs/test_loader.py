"""The seed 003 loader API: names, copies, paths, validation and its three errors."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest
from jsonschema import Draft202012Validator

from engine.errors import SchemaNotFoundError, SchemaValidationError
from engine.specs import (
    get_schema_path,
    list_schemas,
    load_schema,
    parse_spec,
    validate,
    validate_quietly,
)
from engine.specs.models import AgentErrorTaxonomy, ErrorCategory

NAMES = ["agent_capability_v1", "agent_error_taxonomy_v1", "capsule_format_v1",
         "tool_canonical_ir_v1"]
ENTRY = {"code": 201, "name": "TOOL_TIMEOUT", "description": "d", "severity": "error",
         "recoverable": True}
ERROR = {"taxonomy_version": "1.0.0", "categories": [
    {"category_name": "tool_execution", "code_prefix": 2, "description": "tools",
     "errors": [ENTRY]}]}


def test_list_schemas_is_sorted_seed_list() -> None:
    assert list_schemas() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_documented_draft_2020_12(name: str) -> None:
    schema = load_schema(name, layout="refs")
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["description"] and schema["examples"] and schema["title"]
    path = get_schema_path(name)
    assert path.is_absolute() and path.is_file()
    assert json.loads(path.read_text(encoding="utf-8")) == schema


def test_mutating_a_copy_of_a_loaded_schema_cannot_corrupt_the_cache() -> None:
    first = copy.deepcopy(load_schema("agent_error_taxonomy_v1", layout="refs"))
    first["$defs"]["error_entry"]["properties"]["code"]["maximum"] = 10_000
    first["required"].clear()
    first.clear()
    again = load_schema("agent_error_taxonomy_v1")
    assert again["$defs"]["error_entry"]["properties"]["code"]["maximum"] == 699
    assert "categories" in again["required"]
    assert validate_quietly({"taxonomy_version": "1.0.0"}, "agent_error_taxonomy_v1")[0] is False


@pytest.mark.parametrize("name", ["nope", "../agent.schema", "agent_error_taxonomy_v1.json", ""])
def test_unknown_names_raise_schema_not_found(name: str) -> None:
    for call in (load_schema, get_schema_path, lambda n: validate({}, n)):
        with pytest.raises(SchemaNotFoundError) as caught:
            call(name)
        assert isinstance(caught.value, FileNotFoundError)
        assert caught.value.schema_name == name
        assert "agent_error_taxonomy_v1" in str(caught.value)


def test_validate_returns_true_or_raises_with_the_jsonschema_error() -> None:
    assert validate(ERROR, "agent_error_taxonomy_v1") is True
    wrong = json.loads(json.dumps(ERROR))
    wrong["categories"][0]["errors"][0]["code"] = 301
    with pytest.raises(SchemaValidationError) as caught:
        validate(wrong, "agent_error_taxonomy_v1")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value.validation_error, jsonschema.ValidationError)
    assert list(caught.value.validation_error.absolute_path) == [
        "categories", 0, "errors", 0, "code"]
    assert "/categories/0/errors/0/code" in str(caught.value)


def test_validate_quietly_never_raises() -> None:
    assert validate_quietly(ERROR, "agent_error_taxonomy_v1") == (True, "")
    ok, message = validate_quietly({"taxonomy_version": "1.0.0"}, "agent_error_taxonomy_v1")
    assert not ok and "required" in message
    ok, message = validate_quietly(ERROR, "missing_v9")
    assert not ok and "missing_v9" in message


def test_parse_spec_gives_typed_models_and_model_only_rules() -> None:
    model = parse_spec(ERROR, "agent_error_taxonomy_v1")
    assert isinstance(model, AgentErrorTaxonomy)
    assert model.categories[0].errors[0].code == 201
    assert ErrorCategory(model.categories[0].category_name) is ErrorCategory.TOOL_EXECUTION
    capsule = copy.deepcopy(load_schema("capsule_format_v1")["examples"][0])
    capsule["run"]["ended_at"] = "2000-01-01T00:00:00Z"
    with pytest.raises(SchemaValidationError, match="must not be before started_at"):
        parse_spec(capsule, "capsule_format_v1")
