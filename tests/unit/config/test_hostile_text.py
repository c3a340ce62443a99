"""Text a pull request can hide in a config file: names longer than a tool name may be, keys
behind line breaks only some YAML readers see, merge keys only YAML 1.1 readers apply. Each
is a located issue; nothing of it reaches a loaded set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config.loader import check_paths
from tests.unit.config.helpers import config_set

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\nterminal: true\n"


def found(root: Path) -> list[tuple[str, str, int, int, str]]:
    return [(i.code, Path(i.file).name, i.line, i.col, i.json_path)
            for i in check_paths([root]).issues]


@pytest.mark.parametrize("key", ["handoff: {trigger: ", "handoff_trigger: "])
def test_a_trigger_longer_than_a_tool_name_is_refused_where_it_is(
    write_files: Write, key: str
) -> None:
    """A trigger is the name of a tool the model calls: vendors take at most 64 characters."""
    agent = f"name: b\nterminal: true\n{key}{'t' * 100_000}{'}' if '{' in key else ''}\n"
    root = config_set(write_files, {"a": ENTRY, "b": agent})
    result = check_paths([root])
    where = "$.handoff.trigger" if "{" in key else "$.handoff_trigger"
    col = 20 if "{" in key else 18
    assert [(i.code, Path(i.file).name, i.line, i.col, i.json_path)
            for i in result.issues] == [("schema", "b.yaml", 3, col, where)]
    message = result.issues[0].message
    assert "100000 characters" in message and "at most 64" in message
    assert len(message) < 200  # the value itself is not echoed


def test_a_trigger_of_64_characters_is_a_tool_name_still(write_files: Write) -> None:
    longest = "t" * 64
    agent = f"name: b\nterminal: true\nhandoff: {{trigger: {longest}}}\n"
    root = config_set(write_files, {"a": ENTRY, "b": agent})
    assert [i.code for i in check_paths([root]).issues] == ["unreachable-agent"]
    agent = f"name: b\nterminal: true\nhandoff: {{trigger: {longest}x}}\n"
    root = config_set(write_files, {"a": ENTRY, "b": agent})
    assert found(root) == [("schema", "b.yaml", 3, 20, "$.handoff.trigger")]
