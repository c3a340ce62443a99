"""Link and topology stages: policy edges, `peers: []` is no one, `*` anyone, shadowed rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.config.topology import handoff_edges
from engine.loading.loader import check_paths, load_config
from tests.unit.config.helpers import config_set

ENTRY = "name: a\nhandoff: {is_entry_point: true}\n"
Write = Callable[[dict[str, str]], Path]


def found(root: Path) -> list[tuple[str, str]]:
    return [(i.code, Path(i.file).name) for i in check_paths([root]).issues]


def test_empty_peers_means_no_one_and_star_means_anyone(write_files: Write) -> None:
    root = config_set(
        write_files,
        {
            "a": ENTRY + "peers: '*'\n",
            "b": "name: b\npeers: []\n",
            "c": "name: c\npeers: [a]\n",
        },
    )
    snapshot = load_config(root)
    assert handoff_edges(snapshot.config) == {"a": ["b", "c"], "b": [], "c": ["a"]}
    assert [(w.code, Path(w.file).name) for w in snapshot.warnings] == [
        ("dead-end-agent", "b.yaml")
    ]


def test_omitted_peers_is_no_one_but_terminal_agents_are_fine(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY + "peers: [b]\n", "b": "name: b\nterminal: true\n"})
    assert load_config(root).warnings == ()


def test_accepts_from_restricts_edges_and_reachability(write_files: Write) -> None:
    root = config_set(
        write_files,
        {
            "a": ENTRY + "peers: [b]\n",
            "b": "name: b\npeers: [a]\naccepts: {from: [c]}\n",
            "c": "name: c\nenabled: false\npeers: [b]\n",
        },
    )
    assert found(root) == [("dead-end-agent", "a.yaml"), ("unreachable-agent", "b.yaml")]


def test_shadowed_rule_ignores_list_order_but_not_lower_priority_earlier(
    write_files: Write,
) -> None:
    routing = """rules:
  - id: low
    priority: 1
    when: {keywords: {any: [x, y]}}
    to: b
  - id: high
    priority: 5
    when: {keywords: {any: [y, x]}}
    to: a
  - id: other
    priority: 5
    when: {keywords: {any: [y, x]}, from: [b]}
    to: a
"""
    root = config_set(
        write_files, {"a": ENTRY + "peers: [b]\n", "b": "name: b\npeers: [a]\n"}, routing=routing
    )
    issues = check_paths([root]).issues
    assert [(i.code, i.line) for i in issues] == [("shadowed-rule", 2)]
    assert "'high'" in issues[0].message


def test_link_errors_of_every_kind_are_reported_together(write_files: Write) -> None:
    root = config_set(
        write_files,
        {
            "a": ENTRY + "peers: [b, zed]\ncapabilities: [alpha, gamma]\naccepts: {from: [q]}\n",
            "b": "name: b\npeers: [a]\nhandoff: {trigger: t}\n",
            "c": "name: c\npeers: [a]\nhandoff: {trigger: t}\n",
        },
        routing="rules:\n  - {id: r, to: nobody, when: {from: [ghost], capabilities: [delta]}}\n",
    )
    assert sorted(found(root)) == [
        ("duplicate-trigger", "c.yaml"),
        ("unknown-agent", "a.yaml"),
        ("unknown-agent", "a.yaml"),
        ("unknown-agent", "routing.yaml"),
        ("unknown-agent", "routing.yaml"),
        ("unknown-capability", "a.yaml"),
        ("unknown-capability", "routing.yaml"),
    ]
