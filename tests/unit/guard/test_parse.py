"""parse_json on what models really send: fences, chat, broken and cut-off JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import ParseError
from engine.guard import ParseResult, parse_json

CLEAN = [
    ('{"a": 1}', {"a": 1}),
    ("\ufeff{\"a\": 1}", {"a": 1}),
    ("  [1, 2]\n", [1, 2]),
    ("42", 42),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('```\n{"a": 1}\n```', {"a": 1}),
    ('Sure! Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
    ('The answer is {"a": {"b": "}"}} as requested.', {"a": {"b": "}"}}),
    ("Here's it: {\"a\": \"it's\"} ok", {"a": "it's"}),
]

REPAIRED = [
    ('{"a": 1, "b": 2,}', {"a": 1, "b": 2}),
    ('{"a": [1, 2, 3,],}', {"a": [1, 2, 3]}),
    ("{'a': 'x', 'b': 'y'}", {"a": "x", "b": "y"}),
    ("{a: 1, b_c: 'two'}", {"a": 1, "b_c": "two"}),
    ('{"a": 1, // note\n "b": /* two */ 2}', {"a": 1, "b": 2}),
    ('{"a": True, "b": None, "c": False}', {"a": True, "b": None, "c": False}),
    ('{"a": "line\nbreak"}', {"a": "line\nbreak"}),
    ('{"a": 1 "b": 2}', {"a": 1, "b": 2}),
    ("{'a': \"\\u00e9\\n\"}x", {"a": "é\n"}),
]

TRUNCATED = [
    ('{"name": "ada", "tags": ["a",', {"name": "ada", "tags": ["a"]}),
    ('{"a": {"b": [1, 2, "thr', {"a": {"b": [1, 2, "thr"]}}),
    ('{"a": 1, "b": ', {"a": 1}),
    ('{"a": 1, "b', {"a": 1}),
    ('[{"a": 1}, {"b"', [{"a": 1}, {}]),
    ('```json\n{"a": [1, 2', {"a": [1, 2]}),
]


@pytest.mark.parametrize(("text", "expected"), CLEAN)
def test_clean_json_is_not_flagged(text: str, expected: Any) -> None:
    assert parse_json(text) == expected
    assert parse_json(text, detailed=True) == ParseResult(expected, False, False)


@pytest.mark.parametrize(("text", "expected"), REPAIRED)
def test_common_breakage_is_repaired(text: str, expected: Any) -> None:
    assert parse_json(text, detailed=True) == ParseResult(expected, truncated=False,
                                                           repaired=True)


@pytest.mark.parametrize(("text", "expected"), TRUNCATED)
def test_cut_off_output_is_closed_and_flagged(text: str, expected: Any) -> None:
    assert parse_json(text, detailed=True) == ParseResult(expected, truncated=True,
                                                           repaired=True)


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [("not json at all", 1, 1), ("", 1, 1), ("\n\n  nothing { here", 3, 3), ("]]", 1, 1),
     ("{{{{", 1, 2), ("{:}", 1, 2)],
)
def test_no_json_raises_located_parse_error(text: str, line: int, col: int) -> None:
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert (caught.value.line, caught.value.col) == (line, col)
    assert isinstance(caught.value, ValueError)
    assert f"line {line}, column {col}" in str(caught.value)


def test_preview_shows_the_start_of_the_input() -> None:
    with pytest.raises(ParseError) as caught:
        parse_json("I refuse to answer that question")
    assert caught.value.preview == "I refuse to answer that question"


def test_parse_error_carries_raw_output_and_original() -> None:
    text = "Sorry.\nI cannot do that.\t" + "x" * 600
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    error = caught.value
    assert error.raw_output == text[:500]
    assert isinstance(error.original, json.JSONDecodeError)
    assert (error.line, error.col) == (1, 1)
    assert error.preview.endswith("...") and "\\n" in error.preview
    assert len(error.preview) == 203 + 2  # 200 characters, "...", and two escapes


def test_parse_error_message_has_the_diagnostic_layout() -> None:
    text = 'Result:\n  "name": "ada",\n  oops\nend'
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert str(caught.value) == (
        "JSON parse error: Expecting value at line 1, column 1\n"
        "\n"
        "  1 | Result:\n"
        "    | ^\n"
        '  2 |   "name": "ada",\n'
        "\n"
        "Suggestion: Expected a value (string, number, object, array, true, false, or null).\n"
        "\n"
        "Input preview: 'Result:\\n  \"name\": \"ada\",\\n  oops\\nend'"
    )


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [("not json", "Expected a value"),
     ('"open string', "Missing closing quote"),
     ("{{{{", "Object key must be a double-quoted string"),
     ("{:}", "Object key must be a double-quoted string")],
)
def test_suggestions_name_the_fix(text: str, suggestion: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert caught.value.suggestion.startswith(suggestion)
    assert f"Suggestion: {caught.value.suggestion}" in str(caught.value)


def test_long_lines_are_cut_and_the_caret_stays_on_them() -> None:
    from engine.guard.diagnose import snippet

    shown = snippet("a" * 200 + "\nb", 1, 150).splitlines()
    assert shown[0] == "  1 | " + "a" * 77 + "..."
    assert shown[1] == "    | " + " " * 80 + "^"
    assert shown[2] == "  2 | b"


@pytest.mark.parametrize("value", [None, 42, b'{"a": 1}', {"a": 1}])
def test_non_strings_raise_parse_error(value: Any) -> None:
    with pytest.raises(ParseError, match=f"Expected string, got {type(value).__name__}") as caught:
        parse_json(value)
    assert caught.value.raw_output == repr(value)
    assert isinstance(caught.value.original, TypeError)


def test_absurd_nesting_is_a_parse_error_not_a_crash() -> None:
    with pytest.raises(ParseError):
        parse_json("{a: " * 2000)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=4),
    max_leaves=20,
)
json_documents = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def test_a_fence_inside_a_fenced_json_string_does_not_cut_the_document() -> None:
    """Found by the round-trip property below: strict JSON anywhere beats a repaired cut."""
    text = '```json\n{"": null, "```": null}\n```'
    assert parse_json(text) == {"": None, "```": None}


@given(json_documents, st.sampled_from(["{}", "Here: {} Done.", "```json\n{}\n```"]))
def test_valid_json_round_trips_through_any_wrapper(document: dict[str, Any], wrap: str) -> None:
    text = wrap.replace("{}", json.dumps(document), 1)
    assert parse_json(text) == document


@given(json_documents, st.data())
def test_any_cut_of_valid_json_parses_or_raises_parse_error(
    document: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(document)
    cut = data.draw(st.integers(min_value=1, max_value=len(text)))
    try:
        result = parse_json(text[:cut], detailed=True)
    except ParseError:
        return
    assert isinstance(result.data, dict | list | str | int | float | bool | type(None))
    if cut < len(text):
        assert result.truncated or result.data is not None


DEEP = "[" * 100_000 + "]" * 100_000
LONG_NUMBER = '{"a": ' + "1" * 5000 + "}"


@pytest.mark.parametrize("text", [DEEP, "Sure: " + DEEP, f"```json\n{DEEP}\n```"])
def test_json_nested_past_the_recursion_limit_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert caught.value.message == "JSON parse error: nested too deep to read"
    assert caught.value.suggestion == "Return JSON with less nesting"
    assert caught.value.raw_output == text[:500]
    assert isinstance(caught.value.original, RecursionError)


@pytest.mark.parametrize("text", [LONG_NUMBER, "1" * 5000, "here: " + LONG_NUMBER])
def test_a_number_too_long_to_read_is_a_parse_error(text: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert caught.value.message == "JSON parse error: a number is too long to read"
    assert caught.value.suggestion == "Write very long numbers as strings"
    assert type(caught.value.original) is ValueError
