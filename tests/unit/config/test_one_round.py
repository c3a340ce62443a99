"""Errors in one round: cross-file checks run on every valid file whatever failed elsewhere,
and say nothing a failed file (or a broken include) may make untrue."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.loading.loader import check_paths
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


BROKEN_ROOT = ENGINE.replace("entry: a\n", "entry: a\npolices: {max_hops: 4}\n")


def test_a_broken_root_does_not_hide_unknown_names_in_other_files(write_files: Write) -> None:
    """engine.yaml's typo, an unknown peer and a rule to an unknown agent: all in one run."""
    root = config_set(write_files, {"a": ENTRY, "b": "name: b\npeers: [a, nobody]\n"},
                      routing="rules:\n  - {id: r, when: {tool: [t]}, to: ghost}\n",
                      engine=BROKEN_ROOT)
    assert found(root) == [
        ("unknown-agent", "b.yaml"), ("unknown-key", "engine.yaml"),
        ("unknown-agent", "routing.yaml"),
    ]


def test_a_broken_entry_is_not_checked_against_the_agents(write_files: Write) -> None:
    """With `entry` in error, no agent's is_entry_point conflicts with it and the entry is
    not reported unknown: the real error is the entry's own."""
    engine = ENGINE.replace("entry: a\n", "entry: [a]\n")
    root = config_set(write_files, {"a": ENTRY, "b": "name: b\npeers: [ghost]\n"}, engine=engine)
    assert found(root) == [("unknown-agent", "b.yaml"), ("type", "engine.yaml")]
    missing = ENGINE.replace("entry: a\n", "")
    root = config_set(write_files, {"a": ENTRY, "b": "name: b\npeers: [ghost]\n"}, engine=missing)
    assert found(root) == [("unknown-agent", "b.yaml"), ("required", "engine.yaml")]


def test_checks_that_read_a_broken_normalization_wait_for_it(write_files: Write) -> None:
    """'um' is a keyword only when fillers are kept: with the normalization in error (or
    misspelt) the keyword checks stay silent rather than judge it by the defaults."""
    keep_fillers = "normalization: {disfluencies: false, stemming: englsh}\n"
    agents = {"a": ENTRY, "b": "name: b\ncapabilities: [alpha]\n"}
    capabilities = "capabilities:\n  alpha: {keywords: [um]}\n"
    for normalization in (keep_fillers, keep_fillers.replace("normalization", "normalisation")):
        engine = ENGINE.replace("entry: a\n", f"entry: a\n{normalization}")
        root = config_set(write_files, agents, engine=engine)
        (root / "capabilities.yaml").write_text(capabilities, "utf-8")
        codes = [code for code, _file in found(root)]
        assert codes in (["enum"], ["unknown-key"]), codes  # the misspelt stemmer, or key
    root = config_set(write_files, agents)
    (root / "capabilities.yaml").write_text(capabilities, "utf-8")
    assert found(root) == [("empty-keyword", "capabilities.yaml")]
