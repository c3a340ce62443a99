"""The bundled schema catalog: short names, stable `$id`s, exports, refs resolved offline."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import ValidationError
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from engine.config.catalog import catalog, export_schemas, find_schema, schema_file
from engine.config.schemas import SCHEMA_BASE, bundled_registry, schema_root
from engine.errors import SchemaNotFoundError
from engine.validation.validators import safe_validator

CONFIG = ["agent", "capabilities", "cases", "engine", "listeners", "routing"]
SPECS = ["agent_capability_v1", "agent_error_taxonomy_v1", "capsule_format_v1",
         "tool_canonical_ir_v1"]


def test_catalog_lists_every_config_schema_then_every_spec() -> None:
    entries = catalog()
    assert [e.name for e in entries] == CONFIG + SPECS
    assert [e.kind for e in entries] == ["config"] * 6 + ["spec"] * 4


@pytest.mark.parametrize("name", CONFIG)
def test_config_schema_ids_are_versioned_urls_named_after_their_file(name: str) -> None:
    entry = find_schema(name)
    assert entry.schema_id == f"{SCHEMA_BASE}{name}.schema.json"
    assert SCHEMA_BASE == "https://handoff-engine.dev/schemas/v1/"


def test_schemas_are_found_by_short_name_or_file_name() -> None:
    assert find_schema("engine.schema.json").name == "engine"
    assert find_schema("specs/capsule_format_v1.json").name == "capsule_format_v1"
    assert schema_file(find_schema("routing")).read_text("utf-8").lstrip().startswith("{")


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(SchemaNotFoundError) as caught:
        find_schema("agents")
    assert "'agents'" in str(caught.value) and "agent, agent_capability_v1" in str(caught.value)


def test_export_copies_every_schema_byte_for_byte_and_refreshes(tmp_path: Path) -> None:
    target = tmp_path / "out"
    written = export_schemas(target)
    assert len(written) == len(catalog())
    for entry in catalog():
        assert (target / entry.file).read_bytes() == (schema_root() / entry.file).read_bytes()
    (target / "agent.schema.json").write_text("stale", encoding="utf-8")
    export_schemas(target)
    assert (target / "agent.schema.json").read_bytes() == (
        schema_root() / "agent.schema.json").read_bytes()


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a schema reference tried to open a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.mark.usefixtures("no_network")
@pytest.mark.parametrize("name", CONFIG + SPECS)
def test_every_ref_of_every_bundled_schema_resolves_from_the_package(name: str) -> None:
    schema = find_schema(name).load()
    resolver = bundled_registry().resolver_with_root(DRAFT202012.create_resource(schema))
    for ref in _refs(schema):
        assert resolver.lookup(ref).contents is not None, ref


@pytest.mark.usefixtures("no_network")
def test_a_ref_to_a_bundled_id_resolves_offline_and_any_other_url_does_not() -> None:
    names = {"$ref": f"{SCHEMA_BASE}agent.schema.json#/$defs/agentName"}
    validator = safe_validator(names, registry=bundled_registry())
    validator.validate("fraud_agent")
    with pytest.raises(ValidationError):
        validator.validate("not a name!")
    elsewhere = safe_validator({"$ref": "https://example.com/x.json"}, registry=bundled_registry())
    with pytest.raises(Unresolvable):
        elsewhere.validate("anything")
