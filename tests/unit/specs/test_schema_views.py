"""`load_schema` hands out the aumai-specs layout (nested schemas written in place) as one
read-only view per schema: seed code walking `properties` works, a change is refused, and
the view validates exactly what the bundled file does."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.errors import UsageError
from engine.specs import get_schema_path, list_schemas, load_schema
from engine.specs.views import inlined


def test_seed_code_walking_nested_properties_finds_them() -> None:
    tool = load_schema("tool_canonical_ir_v1")
    capability = tool["properties"]["capabilities"]["items"]
    assert {"action", "domain"} <= set(capability["required"])
    assert capability["properties"]["timeout_seconds"]["maximum"] == 3600
    assert "pii_handling" in tool["properties"]["security"]["properties"]
    agent = load_schema("agent_capability_v1")
    tiers = agent["properties"]["sandbox"]["properties"]["tier"]["enum"]
    assert "docker_local" in tiers
    egress = agent["properties"]["network"]["properties"]["egress_rules"]["items"]
    assert "protocol" in egress["properties"]
    version = agent["properties"]["capability_version"]
    assert "pattern" in version and version["description"] != \
        agent["$defs"]["semver"].get("description")  # the field's own description is kept
    capsule = load_schema("capsule_format_v1")
    assert "step_type" in capsule["properties"]["execution_trace"]["items"]["properties"]
    taxonomy = load_schema("agent_error_taxonomy_v1")
    entry = taxonomy["properties"]["categories"]["items"]["properties"]["errors"]["items"]
    assert entry["properties"]["code"]["maximum"] == 699


@pytest.mark.parametrize("name", list_schemas())
def test_no_local_ref_is_left_and_the_file_layout_is_one_flag_away(name: str) -> None:
    text = json.dumps(load_schema(name))
    assert '"$ref": "#/' not in text
    with get_schema_path(name).open(encoding="utf-8") as file:
        assert load_schema(name, layout="refs") == json.load(file)


@pytest.mark.parametrize("name", list_schemas())
def test_the_inline_layout_validates_exactly_what_the_file_does(name: str) -> None:
    refs = Draft202012Validator(load_schema(name, layout="refs"))
    inline = Draft202012Validator(load_schema(name))
    Draft202012Validator.check_schema(load_schema(name))
    documents: list[Any] = [{}, [], "x", None]
    for example in load_schema(name, layout="refs")["examples"]:
        documents.append(example)
        for key in example:  # each example less one key, and with one key of the wrong type
            documents.append({k: v for k, v in example.items() if k != key})
            documents.append({**example, key: 12345})
    for document in documents:
        assert inline.is_valid(document) == refs.is_valid(document), document


MUTATIONS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "set a key": lambda s: s.__setitem__("title", "mine"),
    "delete a key": lambda s: s.__delitem__("title"),
    "clear nested properties": lambda s: s["properties"].clear(),
    "update": lambda s: s.update({"title": "mine"}),
    "setdefault": lambda s: s.setdefault("new", 1),
    "pop": lambda s: s.pop("title"),
    "merge in place": lambda s: s.__ior__({"a": 1}),
    "append to required": lambda s: s["required"].append("x"),
    "extend required": lambda s: s["required"].extend(["x"]),
    "sort required": lambda s: s["required"].sort(),
    "set a list item": lambda s: s["required"].__setitem__(0, "x"),
    "add to a list in place": lambda s: s["required"].__iadd__(["x"]),
}


@pytest.mark.parametrize("mutate", list(MUTATIONS.values()), ids=list(MUTATIONS))
def test_every_change_is_refused_with_what_to_do_instead(
    mutate: Callable[[dict[str, Any]], Any],
) -> None:
    schema = load_schema("tool_canonical_ir_v1")
    before = json.dumps(schema)
    with pytest.raises(TypeError, match=r"read-only.*copy\.deepcopy\(schema\)"):
        mutate(schema)
    assert json.dumps(load_schema("tool_canonical_ir_v1")) == before


def test_every_call_hands_out_the_same_view_and_copies_are_plain() -> None:
    first = load_schema("capsule_format_v1")
    assert load_schema("capsule_format_v1") is first
    assert load_schema("capsule_format_v1", layout="refs") is not first
    mine = copy.deepcopy(first)
    assert type(mine) is dict and type(mine["required"]) is list and mine == first
    mine["properties"].clear()
    mine["required"].append("x")
    assert load_schema("capsule_format_v1")["properties"]
    assert type(copy.copy(first)) is dict
    assert pickle.loads(pickle.dumps(first)) == first


def test_an_unknown_layout_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="layout must be one of 'inline', 'refs'"):
        load_schema("capsule_format_v1", layout="flat")  # type: ignore[arg-type]


def test_a_ref_into_its_own_expansion_stays_a_ref() -> None:
    tree = {"$defs": {"node": {"type": "object",
                               "properties": {"children": {"type": "array",
                                                           "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node", "description": "a tree"}
    flat = inlined(tree)
    assert flat["description"] == "a tree" and flat["type"] == "object"
    assert flat["properties"]["children"]["items"] == {"$ref": "#/$defs/node"}
    checker = Draft202012Validator(flat)
    assert checker.is_valid({"children": [{"children": []}]})
    assert not checker.is_valid({"children": [{"children": 3}]})
