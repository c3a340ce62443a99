"""Generated valid config sets load, and models -> YAML -> load gives equal models."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from engine.config.freeze import thaw
from engine.config.models import AgentSpec, ConfigSet
from engine.config.parse import parse_text
from engine.loading.loader import load_config

NAME = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
               max_size=20)
"""Text a config may hold raw: U+2028 and U+2029 (Zl, Zp) and U+0085 (Cc) only escaped (see
test_hostile_text: YAML readers disagree on them)."""
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    TEXT,
    st.floats(allow_nan=False, allow_infinity=False, width=32),
)
METADATA = st.dictionaries(
    NAME,
    st.recursive(
        SCALAR,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAME, inner, max_size=3),
        max_leaves=8,
    ),
    max_size=4,
)


@st.composite
def config_sets(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(NAME, min_size=1, max_size=5, unique=True))
    capabilities = draw(st.lists(NAME, max_size=4, unique=True))
    agents = []
    for index, name in enumerate(names):
        agent: dict[str, Any] = {"name": name, "description": draw(TEXT)}
        agent["peers"] = draw(
            st.one_of(st.just("*"), st.lists(st.sampled_from(names), unique=True))
        )
        agent["terminal"] = True
        agent["handoff"] = {"trigger": f"handoff_{name}", "is_entry_point": index == 0}
        if capabilities:
            agent["capabilities"] = draw(st.lists(st.sampled_from(capabilities), unique=True))
        if draw(st.booleans()):
            agent["context"] = {"share": "carry", "carry": draw(st.lists(NAME, unique=True))}
        agent["metadata"] = draw(METADATA)
        agents.append(agent)
    rules = [
        {
            "id": f"r{index}",
            "priority": draw(st.integers(-5, 5)),
            "to": draw(st.sampled_from(names)),
            "when": {"keywords": {"any": [f"w{index}"]}, "context": draw(METADATA)},
        }
        for index in range(draw(st.integers(0, 3)))
    ]
    return {
        "engine": {
            "version": 1,
            "name": "gen",
            "entry": names[0],
            "include": {
                "agents": ["agents/*.yaml"],
                "capabilities": ["capabilities.yaml"],
                "routing": ["routing.yaml"],
            },
        },
        "agents": agents,
        # a keyword of its own, never a lone filler word ("ah", "um"): that is no keyword
        "capabilities": {"capabilities": {name: {"keywords": [f"kw{name}"]}
                                          for name in capabilities}},
        "routing": {"rules": rules, "fallback": names[0]},
    }


def to_yaml(data: Any) -> str:
    """YAML as a person writes it: block style. In flow style ruamel's emitter writes `?0`
    unquoted (`[?0]`), which YAML 1.2 reads as the text but every Python parser as a key; the
    parse stage refuses that text (`yaml-ambiguous`) rather than guess."""
    writer = YAML(typ="safe", pure=True)
    writer.default_flow_style = False
    stream = io.StringIO()
    writer.dump(data, stream)
    return stream.getvalue()


def dump(data: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_yaml(data), encoding="utf-8")


def write(folder: Path, data: dict[str, Any]) -> None:
    dump(data["engine"], folder / "engine.yaml")
    for index, agent in enumerate(data["agents"]):
        dump(agent, folder / "agents" / f"{index:02d}.yaml")
    dump(data["capabilities"], folder / "capabilities.yaml")
    dump(data["routing"], folder / "routing.yaml")


def agent_to_yaml(agent: AgentSpec) -> dict[str, Any]:
    return dump_model(agent)


def dump_model(model: Any, *, exclude: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A model as the YAML a user would write: aliases, no defaults, no source."""
    data: dict[str, Any] = model.model_dump(
        by_alias=True, exclude_defaults=True, exclude={"source", *exclude}
    )
    return data


def config_to_yaml(config: ConfigSet) -> dict[str, Any]:
    """The documents of a loaded config, rebuilt from its models."""
    engine = dump_model(config.engine)
    engine["include"] = {
        "agents": ["agents/*.yaml"],
        "capabilities": ["capabilities.yaml"],
        "routing": ["routing.yaml"],
    }
    rules = []
    rules = [dump_model(rule) for rule in config.routing.rules]
    capabilities = {
        name: dump_model(spec, exclude=frozenset({"name"}))
        for name, spec in config.capabilities.items()
    }
    return {
        "engine": engine,
        "agents": [agent_to_yaml(agent) for agent in config.agents.values()],
        "capabilities": {"capabilities": capabilities},
        "routing": {"rules": rules, "fallback": config.routing.fallback},
    }


def without_sources(config: ConfigSet) -> Any:
    return (
        config.engine.model_copy(update={"source": None}),
        [agent.model_copy(update={"source": None}) for agent in config.agents.values()],
        [spec.model_copy(update={"source": None}) for spec in config.capabilities.values()],
        [rule.model_copy(update={"source": None}) for rule in config.routing.rules],
        config.routing.fallback,
    )


def one_agent(metadata: dict[str, Any]) -> dict[str, Any]:
    """The smallest generated-style set: one agent `a` carrying `metadata`."""
    include = {"agents": ["agents/*.yaml"], "capabilities": ["capabilities.yaml"],
               "routing": ["routing.yaml"]}
    agent = {"name": "a", "description": "", "peers": "*", "terminal": True,
             "handoff": {"trigger": "handoff_a", "is_entry_point": True}, "metadata": metadata}
    return {
        "engine": {"version": 1, "name": "gen", "entry": "a", "include": include},
        "agents": [agent],
        "capabilities": {"capabilities": {}},
        "routing": {"rules": [], "fallback": "a"},
    }


TRICKY = ["?0", '?"?', "? x", ":x", "-", "- x", "#x", "x #y", "'", '"', "!x", "&a", "*a", "|",
          ">", "%x", "@x", "`x", "{", "[", "~", "null", "1e3", "0x1F", ".inf", "yes", " lead",
          "trail ", "a\nb", "\t", "", "é"]


@pytest.mark.parametrize("text", TRICKY)
def test_written_yaml_reads_back_as_the_same_data(text: str) -> None:
    data = {"m": [text, [text], {"k": text}], "k": text, text or "e": {text or "e": [text]}}
    document, issues = parse_text(to_yaml(data), "f.yaml")
    assert issues == [] and document is not None
    assert document.data == data


@given(st.recursive(TEXT, lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(TEXT, inner, max_size=3), max_leaves=8))
def test_any_text_tree_written_as_yaml_reads_back_unchanged(data: Any) -> None:
    document, issues = parse_text(to_yaml({"m": data}), "f.yaml")
    assert issues == [] and document is not None
    assert document.data == {"m": data}


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config_sets())
@example(one_agent({"a": ["?0"], "b": {"c": ['?"?', ":x"]}}))
def test_generated_sets_load_and_round_trip(data: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        write(Path(first), data)
        loaded = load_config(first).config
        assert list(loaded.agents) == [agent["name"] for agent in data["agents"]]
        assert (
            thaw(loaded.agents[data["agents"][0]["name"]].metadata) == data["agents"][0]["metadata"]
        )
        write(Path(second), config_to_yaml(loaded))
        reloaded = load_config(second).config
        assert without_sources(reloaded) == without_sources(loaded)
