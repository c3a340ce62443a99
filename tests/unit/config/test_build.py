"""Build stage: frozen typed models, pass-through data deep-frozen but untouched, SourceRefs set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

import pytest
from pydantic import ValidationError

from engine.config.freeze import deep_freeze, thaw
from engine.loading.loader import load_config
from tests.unit.config.helpers import config_set

AGENT_A = """name: a
handoff: {trigger: handoff_a, is_entry_point: true}
peers: "*"
capabilities: [alpha]
accepts:
  payload_schema: {type: object, properties: {n: {type: integer}}}
metadata:
  voice: {name: en-US-AvaNeural, rate: "+5%"}
  greeting: Hello there
  tools: [a, b]
  nested: {deep: [{x: 1}, null, 2.5, true]}
"""
AGENT_B = "name: b\npeers: [a]\naccepts: {from: [a]}\ncontext: {share: carry, carry: [k]}\n"


def test_models_are_frozen_typed_and_located(write_files: Callable[[dict[str, str]], Path]) -> None:
    root = config_set(write_files, {"a": AGENT_A, "b": AGENT_B})
    snapshot = load_config(root)
    a, b = snapshot.agents["a"], snapshot.agents["b"]
    assert list(snapshot.agents) == ["a", "b"]
    assert a.peers == ("*",) and b.peers == ("a",)
    assert b.accepts.from_agents == ("a",) and a.accepts.from_agents == ("*",)
    assert b.context.carry == ("k",)
    assert a.source is not None and a.source.file == str(root / "agents/a.yaml")
    assert (a.source.line, a.source.col) == (1, 1)
    assert snapshot.config.capabilities["beta"].source.line == 3  # type: ignore[union-attr]
    with pytest.raises(ValidationError):
        a.name = "z"  # type: ignore[misc]
    with pytest.raises(TypeError):
        snapshot.agents["c"] = a  # type: ignore[index]


def test_metadata_is_deep_frozen_and_otherwise_untouched(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    agent = load_config(config_set(write_files, {"a": AGENT_A, "b": AGENT_B})).agents["a"]
    assert isinstance(agent.metadata, MappingProxyType)
    assert isinstance(agent.metadata["voice"], MappingProxyType)
    assert thaw(agent.metadata) == {
        "voice": {"name": "en-US-AvaNeural", "rate": "+5%"},
        "greeting": "Hello there",
        "tools": ["a", "b"],
        "nested": {"deep": [{"x": 1}, None, 2.5, True]},
    }
    with pytest.raises(TypeError):
        agent.metadata["voice"]["name"] = "x"  # type: ignore[index]
    assert isinstance(agent.accepts.payload_schema, MappingProxyType)


def test_deep_freeze_and_thaw_are_inverse() -> None:
    data = {"a": [1, {"b": [2, 3]}], "c": None}
    frozen = deep_freeze(data)
    assert frozen["a"][1]["b"] == (2, 3)
    assert thaw(frozen) == data


def test_equal_frozen_parts_are_one_object_and_near_equal_ones_are_not() -> None:
    first = deep_freeze({"voice": {"name": "v", "rate": 1}, "tools": ["a", "b"]})
    second = deep_freeze({"voice": {"name": "v", "rate": 1}, "tools": ["a", "b"], "x": 0})
    assert first["voice"] is second["voice"] and first["tools"] is second["tools"]
    kinds = [deep_freeze({"n": value}) for value in (1, 1.0, True, 0.0, -0.0)]
    assert [repr(frozen["n"]) for frozen in kinds] == ["1", "1.0", "True", "0.0", "-0.0"]
    assert deep_freeze([[1], [True]])[1] == (True,)
    unhashable = {"obj": bytearray(b"x")}  # data built in Python: frozen, never shared
    assert deep_freeze(unhashable)["obj"] is unhashable["obj"]


def test_models_share_their_fields_marker_and_copies_still_update(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    agents = load_config(config_set(write_files, {"a": AGENT_A, "b": AGENT_A.replace(
        "name: a", "name: b").replace("handoff_a, is_entry_point: true", "handoff_b")}
    )).agents
    a, b = agents["a"], agents["b"]
    assert a.model_fields_set is b.model_fields_set
    copy = a.model_copy(update={"examples": ("x",)})
    assert copy.examples == ("x",) and "examples" in copy.model_fields_set
    assert "examples" not in a.model_fields_set and a.examples == ()


def test_equal_parts_of_models_are_one_object_and_dump_as_before(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    carry = "context: {share: carry, carry: [k]}\naccepts: {from: [a, y]}\n"
    agents = load_config(config_set(write_files, {
        "a": AGENT_A,
        "x": f"name: x\npeers: [y]\n{carry}",
        "y": f"name: y\npeers: [x]\n{carry}",
        "z": "name: z\ncontext: {share: carry, carry: [k, j]}\naccepts: {from: [a, y]}\n",
    })).agents
    x, y, z = agents["x"], agents["y"], agents["z"]
    assert x.context is y.context and x.accepts is y.accepts  # equal parts: one object
    assert z.context is not x.context and z.context.carry == ("k", "j")
    assert z.accepts.from_agents is x.accepts.from_agents  # an equal tuple inside a new model
    assert y.model_dump(exclude={"name", "peers", "source"}) == x.model_dump(
        exclude={"name", "peers", "source"}
    )
    assert x.model_dump(exclude_unset=True)["context"] == {"share": "carry", "carry": ("k",)}


def test_payload_schema_true_accepts_every_payload_as_no_schema_does(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    agent_b = AGENT_B.replace("accepts: {from: [a]}", "accepts: {from: [a], payload_schema: true}")
    snapshot = load_config(config_set(write_files, {"a": AGENT_A, "b": agent_b}))
    assert snapshot.agents["b"].accepts.payload_schema is None


def test_a_duplicate_names_where_the_first_declaration_is() -> None:
    """Both places at file:line:col: the one reported, and the one it repeats."""
    from engine.errors import ConfigError

    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "configs" / "invalid"
    messages = []
    for case in ("duplicate-agent", "duplicate-rule-capability-fallback"):
        with pytest.raises(ConfigError) as raised:
            load_config(fixtures / case)
        messages += [(issue.code, issue.message) for issue in raised.value.issues]
    found = {code: message.rsplit("/", 1)[-1] for code, message in messages}
    assert found == {"duplicate-agent": "b.yaml:1:1", "duplicate-rule": "routing.yaml:2:5",
                     "duplicate-fallback": "routing.yaml:8:1",
                     "duplicate-capability": "capabilities.yaml:4:3"}
