"""Errors in one round: cross-file checks run on every valid file whatever failed elsewhere,
and say nothing a failed file (or a broken include) may make untrue."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.config.loader import check_paths
from tests.unit.config.helpers import ENGINE, config_set

ENTRY = "name: a\nhandoff: {is_entry_point: true}\npeers: [b]\n"
Write = Callable[[dict[str, str]], Path]


def found(root: Path) -> list[tuple[str, str]]:
    return [(i.code, Path(i.file).name) for i in check_paths([root]).issues]


def test_a_schema_error_does_not_hide_an_unknown_peer_elsewhere(write_files: Write) -> None:
    root = config_set(write_files, {
        "a": ENTRY,
        "b": "name: b\npeers: [a, nobody]\n",
        "c": "name: c\npeers: 5\n",  # its own error: c still declares 'c'
    }, routing="rules:\n  - {id: r, when: {tool: [t]}, to: ghost}\n")
    assert found(root) == [
        ("unknown-agent", "b.yaml"), ("schema", "c.yaml"), ("unknown-agent", "routing.yaml")
    ]


def test_a_name_declared_by_a_file_that_failed_validation_is_not_unknown(
    write_files: Write,
) -> None:
    root = config_set(write_files, {"a": ENTRY, "b": "name: b\npeers: 5\n"})
    assert found(root) == [("schema", "b.yaml")]


def test_a_file_that_does_not_parse_silences_unknown_agents_but_not_capabilities(
    write_files: Write,
) -> None:
    root = config_set(write_files, {
        "a": ENTRY + "capabilities: [alpha, gamma]\n",
        "b": "name: 'b\npeers: [a]\n",  # unclosed quote: nothing of it can be known
    })
    assert found(root) == [("unknown-capability", "a.yaml"), ("yaml-syntax", "b.yaml")]


def test_an_include_that_matches_nothing_silences_names_of_its_kind(write_files: Write) -> None:
    engine = ENGINE.replace("'agents/*.yaml'", "'agents/*.yaml', 'more/*.yaml'")
    root = config_set(write_files, {"a": ENTRY}, engine=engine)
    assert found(root) == [("include-no-match", "engine.yaml")]


def test_topology_waits_for_a_complete_set_but_shadowed_rules_do_not(write_files: Write) -> None:
    rules = (
        "rules:\n  - {id: r1, when: {tool: [t]}, to: a}\n"
        "  - {id: r2, when: {tool: [t]}, to: a}\n"
    )
    root = config_set(write_files, {"a": ENTRY, "b": "name: b\npeers: 5\n"}, routing=rules)
    assert found(root) == [("schema", "b.yaml"), ("shadowed-rule", "routing.yaml")]
