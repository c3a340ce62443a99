"""Indentation mistakes in the author's words, through the real parser and schema."""

from __future__ import annotations

from engine.config.indentation import continued_value, merged_item, misaligned_line
from engine.config.parse import parse_text


def test_a_value_holding_colon_space_is_told_to_be_quoted() -> None:
    _document, issues = parse_text("name: a\ndescription: note: this\n", "a.yaml")
    assert [(found.line, found.code) for found in issues] == [(2, "yaml-syntax")]
    assert issues[0].message == ("the value on line 2 contains ': ', which YAML reads as the "
                                 "start of another key: put the value in quotes")


def test_a_nested_mapping_after_a_key_is_not_a_misaligned_line() -> None:
    text = "handoff:\n  trigger: t\npeers: [a]\n"
    assert misaligned_line(text, 3) is None
    assert continued_value(text, 3, 6) is None
    assert parse_text(text, "a.yaml")[1] == []


def test_a_list_item_holding_a_mapping_does_not_swallow_the_list_below_it() -> None:
    text = "any:\n  - when:\n      - x\n"
    assert merged_item(text, 2) is None
    assert merged_item("l:\n  - a\n    - b\n", 2) == (
        "'- b' (line 3) is indented deeper than '- a' (line 2), so YAML reads both as one "
        "item: line up its '-' with line 2's (2 spaces)")


def test_a_line_dedented_into_a_list_names_the_item_it_could_join() -> None:
    _document, issues = parse_text("caps:\n  - a\n - b\n", "a.yaml")
    assert issues[0].message == (
        "line 3 is indented 1 space, which lines up with no key or list item above it: "
        "indent '- b' by 2 like '- a' (line 2) or by 0 like 'caps' (line 1)")
