"""The messages a newcomer's first mistakes get: where a construct started, hints that lead to
the fix (never to a wrong key), and errors headed by what the file is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.config.parse import parse_text
from engine.config.positions import Document
from engine.config.validate import validate_document
from engine.errors import ConfigError
from engine.loading.loader import check_paths
from engine.validation.validators import safe_validator
from tests.unit.config.helpers import config_set

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true}\nterminal: true\n"


def _syntax(text: str) -> tuple[int, int, str]:
    _, issues = parse_text(text, "a.yaml")
    assert [found.code for found in issues] == ["yaml-syntax"]
    return issues[0].line, issues[0].col, issues[0].message


def test_an_unclosed_quote_is_reported_where_it_opens() -> None:
    line, col, message = _syntax("name: a\ndescription: 'unclosed\npeers: []\nterminal: true\n")
    assert (line, col) == (2, 14)
    assert "never closed" in message


def test_an_unclosed_list_is_reported_where_it_opens() -> None:
    assert _syntax("name: a\npeers: [b, c\n")[:2] == (2, 8)


def test_a_problem_inside_a_list_names_where_the_list_started() -> None:
    line, _, message = _syntax("name: a\npeers: [b, c\nterminal: true\n")
    assert line == 3 and "starts at line 2" in message


def _messages(
    write_files: Write, agents: dict[str, str], routing: str = "rules: []\n"
) -> list[str]:
    root = config_set(write_files, agents, routing=routing)
    return [found.message for found in check_paths([root]).issues]


def test_all_agents_in_one_file_gets_a_one_agent_per_file_hint(write_files: Write) -> None:
    messages = _messages(write_files, {"a": ENTRY, "b": "agents:\n  - name: b\n"})
    hinted = [m for m in messages if "unknown key 'agents'" in m]
    assert hinted and "one agent" in hinted[0] and "accepts" not in hinted[0]


def test_a_rule_condition_key_points_to_when(write_files: Write) -> None:
    routing = "rules:\n  - id: r\n    condition: {tool: [x]}\n    to: a\n"
    messages = _messages(write_files, {"a": ENTRY}, routing)
    hinted = [m for m in messages if "unknown key 'condition'" in m]
    assert hinted and "`when:`" in hinted[0] and "description" not in hinted[0]


def test_keywords_as_a_list_get_the_any_form(write_files: Write) -> None:
    routing = "rules:\n  - id: r\n    when: {keywords: [card, loan]}\n    to: a\n"
    messages = _messages(write_files, {"a": ENTRY}, routing)
    assert any("{any: [card, loan]}" in message for message in messages), messages


def test_a_const_mismatch_does_not_suggest_the_value_it_names() -> None:
    document = Document("x.yaml", {"kind": "contxt"}, {(): (1, 1)})
    validator = safe_validator({"properties": {"kind": {"const": "context"}}})
    [found] = validate_document(document, "unused", validator=validator)
    assert "did you mean" not in found.message


def test_a_cases_file_error_is_headed_as_a_cases_file() -> None:
    assert str(ConfigError([], what="cases file")).startswith("cases file has 0 error(s)")
