"""Text a pull request can hide in a config file: names longer than a tool name may be, keys
behind line breaks only some YAML readers see, merge keys only YAML 1.1 readers apply. Each
is a located issue; nothing of it reaches a loaded set."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from engine.config.parse import parse_text
from engine.loading.loader import check_paths
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


BREAKS = ["\u2028", "\u2029", "\x85"]
"""Line breaks to YAML 1.1 readers (libyaml, ruamel, PyYAML), ordinary characters to YAML 1.2
and to editors."""


@pytest.mark.parametrize("positions", [True, False])
@pytest.mark.parametrize("char", BREAKS)
def test_a_line_break_only_some_readers_see_cannot_hide_a_key_in_a_comment(
    char: str, positions: bool
) -> None:
    text = f"name: a  # reviewed{char}peers: ['*']\nterminal: true\n"
    document, issues = parse_text(text, "f.yaml", positions=positions)
    assert document is None
    assert [(i.code, i.line, i.col) for i in issues] == [("yaml-ambiguous", 1, 20)]
    assert f"U+{ord(char):04X}" in issues[0].message


def test_a_key_hidden_in_a_comment_never_reaches_a_loaded_set(write_files: Write) -> None:
    agent = "name: b\nterminal: true\nhandoff: {trigger: go_b}  # reviewed\u2028peers: ['*']\n"
    root = config_set(write_files, {"a": ENTRY, "b": agent})
    assert found(root) == [("yaml-ambiguous", "b.yaml", 3, 37, "")]
    assert check_paths([root]).snapshots == ()


@pytest.mark.parametrize(
    "text",
    [
        'v: "a \u2028 b"\n',  # YAML 1.1 readers drop the spaces around it: 'a\u2028b'
        "v: 'a \u2028 b'\n",
        "v: a \u2028 b\n",
        "v: |\n  a \u2028 b\n",
        "v: >\n  a \u2028 b\n",
    ],
    ids=["double-quoted", "single-quoted", "plain", "literal", "folded"],
)
def test_the_raw_character_is_refused_in_every_scalar_style(text: str) -> None:
    """Inside quotes, too, YAML 1.1 readers treat it as a line break (spaces around it are
    folded away, and every later line number is off by one): only the escape is exact."""
    assert codes(text) == [("yaml-ambiguous", text.count("\n", 0, text.index("\u2028")) + 1,
                            text.index("\u2028") - text.rfind("\n", 0, text.index("\u2028")))]


def test_the_escaped_character_is_read_exactly() -> None:
    document, issues = parse_text('v: "a \\u2028 b\\x85\\u2029"\nw: 1\n', "f.yaml")
    assert issues == [] and document is not None
    assert document.data == {"v": "a \u2028 b\x85\u2029", "w": 1}
    assert document.locate(("w",)) == (2, 4)


def test_what_a_yaml_1_1_writer_emits_raw_is_refused_and_its_escapes_read_exactly() -> None:
    """ruamel writes `'a\u2028  b'` (a line break and an indent, to a YAML 1.1 reader) but
    `"a\\Lb"` in double quotes; YAML 1.2 reads the first as five characters."""
    written = io.StringIO()
    writer = YAML(typ="safe", pure=True)
    writer.dump({"v": "a\u2028b"}, written)
    text = written.getvalue()
    assert codes(text) == [("yaml-ambiguous", 1, text.index("\u2028") + 1)]
    document, issues = parse_text('v: "a\\Lb\\Pc\\Nd"\n', "f.yaml")
    assert issues == [] and document is not None
    assert document.data == {"v": "a\u2028b\u2029c\x85d"}


def test_a_file_full_of_them_gives_a_bounded_report() -> None:
    text = "v: 1\n" + "# x\u2028\n" * 50_000
    issues = codes(text)
    assert 1 < len(issues) <= 21
    assert issues[0] == ("yaml-ambiguous", 2, 4)
    assert "49980 more" in parse_text(text, "f.yaml")[1][-1].message


def codes(text: str) -> list[tuple[str, int, int]]:
    document, issues = parse_text(text, "f.yaml")
    assert document is None
    return [(i.code, i.line, i.col) for i in issues]


@pytest.mark.parametrize("positions", [True, False])
@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("name: a\nmetadata:\n  <<: {voice: x}\n  model: y\n", (3, 3)),
        ("base: &b {voice: x}\nmetadata:\n  model: y\n  <<: *b\n", (4, 3)),
        ("metadata: {model: y, <<: [{voice: x}]}\n", (1, 22)),
        ("<<: {name: a}\n", (1, 1)),
    ],
    ids=["block", "alias", "flow", "top-level"],
)
def test_a_merge_key_is_refused_where_it_is(
    text: str, where: tuple[int, int], positions: bool
) -> None:
    """YAML 1.1 readers merge the keys of the mapping after `<<` into this one; YAML 1.2 (and
    so this loader) reads a key named "<<": one file, two meanings."""
    document, issues = parse_text(text, "f.yaml", positions=positions)
    assert document is None
    assert [(i.code, i.line, i.col) for i in issues] == [("yaml-ambiguous", *where)]
    assert "merge" in issues[0].message and issues[0].json_path.endswith("['<<']")


@pytest.mark.parametrize("text", ["'<<': 1\n", '"<<": 1\n', "v: <<\n", "v: [<<]\n", "<<x: 1\n"])
def test_a_quoted_merge_key_or_the_text_elsewhere_is_read_as_written(text: str) -> None:
    document, issues = parse_text(text, "f.yaml")
    assert issues == [] and document is not None


def test_a_merge_key_in_an_agents_metadata_never_reaches_a_loaded_set(write_files: Write) -> None:
    agent = "name: b\nterminal: true\nmetadata:\n  voice: x\n  <<: {model: y}\n"
    root = config_set(write_files, {"a": ENTRY, "b": agent})
    assert found(root) == [("yaml-ambiguous", "b.yaml", 5, 3, "$.metadata['<<']")]
