"""What the bundled config schemas let through: every number bounded, and no pattern-checked
field accepts a trailing newline (as editors see it, and as the engine checks it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.schemas import load_schema
from engine.loading.loader import check_paths
from engine.validation.patterns import PatternError, compile_pattern
from engine.validation.validators import safe_validator
from tests.unit.config.helpers import config_set, subschemas

Write = Callable[[dict[str, str]], Path]
CONFIG_SCHEMAS = [
    "engine.schema.json",
    "agent.schema.json",
    "capabilities.schema.json",
    "routing.schema.json",
    "cases.schema.json",
    "listeners.schema.json",
]


def numbers(name: str) -> list[tuple[str, dict[str, Any]]]:
    def is_number(schema: dict[str, Any]) -> bool:
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        return "number" in kinds or "integer" in kinds

    return [(where, body) for where, body in subschemas(load_schema(name)) if is_number(body)]


def patterns(name: str) -> list[tuple[str, str]]:
    return [
        (where, body["pattern"])
        for where, body in subschemas(load_schema(name))
        if isinstance(body.get("pattern"), str)
    ]


@pytest.mark.parametrize("name", CONFIG_SCHEMAS)
def test_every_number_has_a_finite_lower_and_upper_bound(name: str) -> None:
    for where, body in numbers(name):
        assert {"minimum", "exclusiveMinimum"} & set(body), f"{name}: {where} has no minimum"
        assert {"maximum", "exclusiveMaximum"} & set(body), f"{name}: {where} has no maximum"


@pytest.mark.parametrize("name", CONFIG_SCHEMAS)
def test_every_pattern_runs_on_the_linear_time_engine(name: str) -> None:
    """A pattern RE2 refuses (a lookaround, a backreference) would fail every value."""
    for where, pattern in patterns(name):
        try:
            compile_pattern(pattern)
        except PatternError as error:
            pytest.fail(f"{name}: {where}: {error}")


ANCHORED = [
    (name, where, pattern)
    for name in CONFIG_SCHEMAS
    for where, pattern in patterns(name)
    if pattern.endswith("$")
]


@pytest.mark.parametrize(("name", "where", "pattern"), ANCHORED, ids=[a[1] for a in ANCHORED])
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_no_anchored_pattern_accepts_a_trailing_newline(
    name: str, where: str, pattern: str, data: st.DataObject
) -> None:
    """Python's `re` lets `$` match before a final newline; ECMA-262 (editors) and RE2 (the
    engine) do not."""
    value = data.draw(st.from_regex(pattern, fullmatch=True).filter(lambda v: "\n" not in v))
    validator = safe_validator({"type": "string", "pattern": pattern})
    assert validator.is_valid(value)
    assert not validator.is_valid(value + "\n")
    assert not validator.is_valid(value + "\r\n")


def test_the_name_patterns_are_all_checked() -> None:
    checked = {where for name, where, _ in ANCHORED if name == "agent.schema.json"}
    assert {"$/$defs/agentName", "$/properties/handoff/properties/trigger"} <= checked


ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: ['b']\n"


@pytest.mark.parametrize(
    "agent_b",
    [
        'name: "b\\n"\nterminal: true\n',
        'name: b\nhandoff: {trigger: "go_b\\n"}\nterminal: true\n',
        "name: b\ncapabilities: [\"alpha\\n\"]\nterminal: true\n",
        'name: b\npeers: ["a\\n"]\n',
    ],
)
def test_a_name_with_a_trailing_newline_is_a_located_error(
    write_files: Write, agent_b: str
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": agent_b})
    found = [(issue.code, Path(issue.file).name) for issue in check_paths([root]).issues]
    assert found == [("schema", "b.yaml")]


def test_two_agents_that_print_the_same_are_not_both_accepted(write_files: Write) -> None:
    root = config_set(
        write_files,
        {"a": ENTRY.replace("['b']", "'*'"), "a2": 'name: "a\\n"\nterminal: true\n'},
    )
    assert [issue.code for issue in check_paths([root]).issues] == ["schema"]
