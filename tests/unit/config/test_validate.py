"""Validate stage: every JSON Schema error becomes an Issue at the offending node."""

from __future__ import annotations

from engine.config.parse import parse_text
from engine.config.validate import suggest, validate_document


def check(text: str, schema: str = "agent.schema.json") -> list[tuple[str, int, int, str]]:
    document, issues = parse_text(text, "agent.yaml")
    assert document is not None, issues
    return [(i.code, i.line, i.col, i.json_path) for i in validate_document(document, schema)]


def messages(text: str, schema: str = "agent.schema.json") -> list[str]:
    document, _ = parse_text(text, "agent.yaml")
    assert document is not None
    return [found.message for found in validate_document(document, schema)]


def test_valid_document_has_no_issue() -> None:
    assert check("name: a\npeers: '*'\naccepts: {from: [b]}\n") == []


def test_every_error_of_a_document_is_reported() -> None:
    text = "name: 3\nenabled: maybe\npeer: [a]\ncontext:\n  share: carri\n"
    assert check(text) == [
        ("type", 1, 7, "$.name"),
        ("type", 2, 10, "$.enabled"),
        ("unknown-key", 3, 1, "$.peer"),
        ("enum", 5, 10, "$.context.share"),
    ]


def test_unknown_keys_point_at_the_key_and_suggest_the_nearest() -> None:
    assert check("name: a\nhandoff:\n  triger: x\n") == [("unknown-key", 3, 3, "$.handoff.triger")]
    assert messages("name: a\nhandoff:\n  triger: x\n") == [
        "unknown key 'triger'; did you mean 'trigger'?"
    ]
    assert messages("name: a\nzzz: 1\n") == ["unknown key 'zzz'"]


def test_required_points_at_the_mapping() -> None:
    assert check("description: x\n") == [("required", 1, 1, "$")]


def test_cross_field_rule_carry_only_with_share_carry() -> None:
    assert check("name: a\ncontext: {share: carry, carry: [x]}\n") == []
    assert check("name: a\ncontext: {carry: [x]}\n")[0][0] == "schema"
    assert messages("name: a\ncontext: {share: none, carry: [x]}\n") == [
        "'carry' is only allowed when share is 'carry'"
    ]


def test_formats_are_really_checked() -> None:
    base = "name: n\nentry: a\ninclude: {agents: [a.yaml]}\n"
    assert (
        check(base + "owner: team@example.com\ndocs: https://x.example/a\n", "engine.schema.json")
        == []
    )
    assert [c[0] for c in check(base + "owner: nobody\n", "engine.schema.json")] == ["format"]
    assert [c[0] for c in check(base + "docs: 'not a uri'\n", "engine.schema.json")] == ["format"]


def test_any_of_errors_name_the_alternatives() -> None:
    assert messages("name: a\npeers: b\n") == ["'b' is not valid here: expected '*' or an array"]


def test_an_array_where_an_array_is_a_choice_is_judged_as_an_array() -> None:
    """`peers` is `'*'` or an array: an array's own fault is named, not "expected an array"."""
    assert messages("name: a\npeers: [b, b]\n") == ["['b', 'b'] has non-unique elements"]
    assert messages("name: a\npeers: [b, 5]\n") == ["5 is not of type 'string'"]


def test_a_choice_with_a_branch_of_no_declared_type_names_the_alternatives() -> None:
    """A `$ref` branch may take an array too: no one branch is chosen to judge it."""
    from jsonschema import Draft202012Validator

    schema = {"$defs": {"pair": {"type": "array", "maxItems": 2}},
              "properties": {"v": {"anyOf": [{"$ref": "#/$defs/pair"},
                                             {"type": "array", "items": {"type": "string"}}]}}}
    document, _ = parse_text("v: [1, 2, 3]\n", "x.yaml")
    assert document is not None
    found = validate_document(document, "x", validator=Draft202012Validator(schema))
    assert [issue.message for issue in found] == [  # not the typed branch's "1 is not ..."
        "[1, 2, 3] is not valid here: expected an array"]


def test_property_name_errors_point_at_the_key() -> None:
    found = check("capabilities:\n  ok: {}\n  9bad: {}\n", "capabilities.schema.json")
    assert found == [("schema", 3, 3, "$.capabilities['9bad']")]


def test_suggest_only_close_words() -> None:
    assert suggest("peer", ["peers", "name"]) == "; did you mean 'peers'?"
    assert suggest("xyz", ["peers", "name"]) == ""
