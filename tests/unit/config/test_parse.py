"""Parse stage: YAML 1.2 plain data, a position for every node, every unsafe input refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.parse import parse_text


def parse_ok(text: str) -> object:
    document, issues = parse_text(text, "f.yaml")
    assert issues == []
    assert document is not None
    return document.data


def codes(text: str, **options: int) -> list[tuple[str, int, int]]:
    document, issues = parse_text(text, "f.yaml", **options)
    assert document is None
    return [(found.code, found.line, found.col) for found in issues]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("yes", "yes"),  # YAML 1.1 booleans stay strings under 1.2
        ("on", "on"),
        ("no", "no"),
        ("true", True),
        ("False", False),
        ("~", None),
        ("null", None),
        ("12", 12),
        ("-3", -3),
        ("0o17", 15),
        ("0x1F", 31),
        ("1.5", 1.5),
        ("1e3", 1000.0),
        ("012", 12),
        ("1_000", "1_000"),
        ("'12'", "12"),
        ('"true"', "true"),
        ("!!str 12", "12"),
        ("!!float 1", 1.0),
        ("!!int 7", 7),
        ("! 12", "12"),
        ("9223372036854775807", 2**63 - 1),
        ("-9223372036854775808", -(2**63)),
        ("0x7FFFFFFFFFFFFFFF", 2**63 - 1),
        ("1e308", 1e308),
        ("00000000000000000000000000007", 7),
    ],
)
def test_scalars_follow_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    assert parse_ok(f"v: {text}\n") == {"v": value}


@pytest.mark.parametrize(
    "text",
    [".inf", "-.Inf", ".nan", ".NaN", "1e999", "-1e999", "!!float .inf", "9223372036854775808",
     "99999999999999999999", "-9223372036854775809", "0x8000000000000000", "9" * 5000],
)
def test_numbers_json_cannot_carry_are_located_errors(text: str) -> None:
    """Infinity and NaN have no JSON form, 1e999 overflows to infinity, and integers past
    64 bits break stores and other languages' parsers (5,000 digits break `int()` itself)."""
    [issue] = parse_text(f"a: 1\nv: {text}\n", "f.yaml")[1]
    assert (issue.code, issue.line, issue.col, issue.json_path) == ("bad-number", 2, 4, "$.v")
    assert len(issue.message) < 120


def test_every_bad_number_of_a_file_is_reported() -> None:
    assert codes("a: .inf\nb: [1, .nan, 2]\n") == [("bad-number", 1, 4), ("bad-number", 2, 8)]


def test_a_node_cap_bounds_what_one_file_may_hold() -> None:
    assert parse_text("[1, 2, 3]\n", "f.yaml", max_nodes=4)[1] == []
    assert codes("[1, 2, 3, 4]\n", max_nodes=4) == [("too-many-nodes", 1, 11)]
    assert codes("a: &x [1, 2]\nb: *x\nc: *x\n", max_nodes=7) == [("too-many-nodes", 3, 1)]


@pytest.mark.parametrize(
    ("text", "col"),
    [("m: [?0]\n", 5), ("m: [a, ?b]\n", 8), ("m: {?x: 1}\n", 5), ("m: [?'q']\n", 5),
     ("é: [ü, ?é]\n", 8)],
)
def test_a_question_mark_glued_to_a_flow_key_is_ambiguous(text: str, col: int) -> None:
    """ruamel and libyaml read `[?0]` as `[{0: null}]`; YAML 1.2 and editors as `['?0']`."""
    assert codes(text) == [("yaml-ambiguous", 1, col)]


@pytest.mark.parametrize(
    ("text", "value"),
    [("m: [? 0]\n", [{"0": None}]), ("m: ['?0']\n", ["?0"]), ("m: ?0\n", "?0"),
     ("m:\n  - ?0\n", ["?0"]), ("m: [a?0]\n", ["a?0"]), ("m: {'?x': 1}\n", {"?x": 1}),
     ("é: [ü, ? é]\n", ["ü", {"é": None}])],
)
def test_unambiguous_question_marks_read_as_written(text: str, value: object) -> None:
    data = parse_ok(text)
    assert isinstance(data, dict) and list(data.values()) == [value]


def test_every_node_and_key_has_a_position() -> None:
    document, _ = parse_text("a:\n  b: [1, {c: x}]\n  'd e': |\n    text\n", "f.yaml")
    assert document is not None
    assert document.values[()] == (1, 1)
    assert document.values[("a",)] == (2, 3)
    assert document.values[("a", "b")] == (2, 6)
    assert document.values[("a", "b", 0)] == (2, 7)
    assert document.values[("a", "b", 1, "c")] == (2, 14)
    assert document.keys[("a", "b", 1, "c")] == (2, 11)
    assert document.keys[("a", "d e")] == (3, 3)
    assert document.locate(("a", "b", 1, "missing")) == (2, 10)


def test_duplicate_keys_are_all_reported_with_the_first_line() -> None:
    document, issues = parse_text("a: 1\nb: 2\na: 3\nb: 4\n", "f.yaml")
    assert document is None
    assert [(i.code, i.line, i.json_path) for i in issues] == [
        ("duplicate-key", 3, "$.a"),
        ("duplicate-key", 4, "$.b"),
    ]
    assert "first defined at line 1" in issues[0].message


def test_keys_are_strings_even_when_they_look_like_numbers() -> None:
    assert parse_ok("1: a\ntrue: b\nnull: c\n") == {"1": "a", "true": "b", "null": "c"}


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system ['echo hi']\n",
        "a: !!python/name:os.system\n",
        "a: !custom x\n",
        "a: !!timestamp 2024-01-01\n",
        "a: !!binary aGk=\n",
        "a: !!set {x}\n",
        "--- !!python/object:os.environ\n{}\n",
    ],
)
def test_only_plain_data_tags_are_allowed(text: str) -> None:
    assert [code for code, _, _ in codes(text)] == ["forbidden-tag"]


def test_a_tag_that_does_not_fit_its_value_is_a_type_issue() -> None:
    assert codes("a: !!int abc\n") == [("type", 1, 4)]


def test_aliases_within_budget_share_the_anchored_value() -> None:
    data = parse_ok("a: &x [1, 2]\nb: *x\n")
    assert data == {"a": [1, 2], "b": [1, 2]}


def test_billion_laughs_is_stopped_at_the_alias_that_crosses_the_cap() -> None:
    levels = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + [
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 12)
    ]
    found = codes("\n".join(levels) + "\n")
    assert [code for code, _, _ in found] == ["alias-limit"]
    assert found[0][1] == 5  # l4 is the first level over 10,000 expanded nodes
    assert codes("a: &a [1, 2, 3]\nb: [*a, *a]\n", max_alias_nodes=5)[0][0] == "alias-limit"


def test_undefined_and_self_referencing_aliases_are_refused() -> None:
    assert codes("a: *nope\n") == [("yaml-syntax", 1, 4)]
    assert codes("a: &x [*x]\n")[0][0] == "yaml-syntax"


def test_depth_cap_is_iterative_and_configurable() -> None:
    deep = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    assert codes(deep)[0][0] == "too-deep"
    assert parse_ok("a: [[[1]]]\n") == {"a": [[[1]]]}
    assert codes("a: [[[1]]]\n", max_depth=3) == [("too-deep", 1, 6)]


def test_multi_document_stream_is_refused_at_the_second_document() -> None:
    assert codes("a: 1\n---\nb: 2\n") == [("multi-document", 2, 1)]
    assert parse_ok("---\na: 1\n...\n") == {"a": 1}


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "--- # c\n...\n"])
def test_empty_documents(text: str) -> None:
    assert [code for code, _, _ in codes(text)] == ["empty-file"]


def test_tabs_used_for_indentation_are_named_as_such() -> None:
    assert codes("a:\n\tb: 1\n") == [("yaml-tab", 2, 1)]
    assert codes("a:\n  b:\n  \tc: 1\n")[0][0] == "yaml-tab"
    assert parse_ok('a: "x\\ty"\nb: "tab\there"\n') == {"a": "x\ty", "b": "tab\there"}


def test_syntax_errors_are_located() -> None:
    assert codes("a: [1, 2\nb: 3\n")[0][:2] == ("yaml-syntax", 2)
    assert codes("a: b: c\n")[0][:2] == ("yaml-syntax", 1)
    assert codes("a: 'unterminated\n")[0][0] == "yaml-syntax"


def test_complex_keys_are_refused() -> None:
    assert codes("? [a, b]\n: 1\n") == [("complex-key", 1, 3)]
    assert codes("? {a: 1}\n: 1\n")[0][0] == "complex-key"


def test_forbidden_control_characters_are_located() -> None:
    assert codes("a: 1\nb: x\x00\n") == [("yaml-syntax", 2, 5)]


YAMLISH = st.text(st.sampled_from(list("ab:-[]{}&*!|>'\"#%@`,?\n\t 0é\x00\x85")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(st.one_of(YAMLISH, st.text(max_size=60)))
def test_any_text_gives_a_document_or_issues_never_an_exception(text: str) -> None:
    document, issues = parse_text(text, "f.yaml")
    assert (document is None) is bool(issues)
    for found in issues:
        assert found.file == "f.yaml" and found.message
