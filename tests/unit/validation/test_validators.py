"""SafeValidator: Draft 2020-12 whose patterns run in linear time and whose refs never fetch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing.exceptions import Unresolvable

from engine.config.schemas import load_schema
from engine.validation.validators import format_checker, safe_validator
from tests.patience import HANG_S
from tests.sandbox import RecordingServer, run_python, watch

NAMES = {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "integer"}},
         "additionalProperties": False}


def messages(schema: Any, instance: Any) -> list[str]:
    return sorted(error.message for error in safe_validator(schema).iter_errors(instance))


def stock(schema: Any, instance: Any) -> list[str]:
    validator = Draft202012Validator(schema, format_checker=format_checker())
    return sorted(error.message for error in validator.iter_errors(instance))


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"pattern": "^a+$"}, "aaa"),
        ({"pattern": "^a+$"}, "aab"),
        (NAMES, {"abc": 1}),
        (NAMES, {"abc": "x", "ABC": 1, "9": 2}),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2}),
        ({"additionalProperties": {"type": "string"}}, {"a": 1}),
        ({"propertyNames": {"pattern": "^x"}}, {"xa": 1, "ya": 2}),
    ],
)
def test_same_verdicts_and_messages_as_stock_jsonschema_on_plain_patterns(
    schema: Any, instance: Any
) -> None:
    assert messages(schema, instance) == stock(schema, instance)


def test_a_trailing_newline_never_passes_an_anchored_pattern() -> None:
    schema = {"type": "string", "pattern": "^[a-z_]+$"}
    assert safe_validator(schema).is_valid("fraud_agent")
    assert not safe_validator(schema).is_valid("fraud_agent\n")
    assert not safe_validator(NAMES).is_valid({"abc\n": 1})


def test_the_regex_format_is_judged_by_the_linear_time_engine() -> None:
    validator = safe_validator({"format": "regex"})
    assert validator.is_valid("^[a-z]+$")
    assert not validator.is_valid("(?=lookahead)")


@pytest.mark.parametrize("scheme", ["http", "file", "relative"])
def test_validation_never_fetches_a_ref_it_cannot_resolve_locally(
    scheme: str, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"type": "string"}), encoding="utf-8")
    with RecordingServer() as server, watch() as activity:
        ref = {"http": f"{server.url}/s.json", "file": outside.as_uri(), "relative": "outside.json"}
        base = tmp_path.as_uri() + "/root.json"
        schema = {"$id": base, "properties": {"a": {"$ref": ref[scheme]}}}
        with pytest.raises(Unresolvable):
            safe_validator(schema).is_valid({"a": 1})
    assert server.hits == []
    assert activity.network == []
    assert str(outside) not in activity.opened


def test_bundled_schemas_validate_their_own_examples() -> None:
    for name in ("engine.schema.json", "agent.schema.json", "routing.schema.json"):
        schema = load_schema(name)
        assert all(safe_validator(schema).is_valid(example) for example in schema["examples"])


@pytest.mark.slow
def test_hostile_text_against_nested_quantifiers_answers_at_once() -> None:
    """`^(a+)+$` against 40 hostile characters: hours for a backtracking engine, so a
    regression shows as the child process timing out, not as a slow suite."""
    result = run_python(
        """
        from engine.validation.validators import safe_validator
        hostile = "a" * 40 + "!"
        evil = "^(a+)+$"
        checks = [
            safe_validator({"pattern": evil}).is_valid(hostile),
            safe_validator({"patternProperties": {evil: False}}).is_valid({hostile: 1}),
            safe_validator({"patternProperties": {evil: {}}, "additionalProperties": False})
                .is_valid({hostile: 1}),
            safe_validator({"propertyNames": {"pattern": evil}}).is_valid({hostile: 1}),
            safe_validator({"pattern": evil}).is_valid("a" * 40),
        ]
        print(checks)
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[False, True, False, False, True]"


@pytest.mark.slow
def test_unique_items_over_tens_of_thousands_of_objects_answers_at_once() -> None:
    """What the pump and the config validator run: pairwise comparison would take hours for
    60,000 objects, so a regression shows as the child process timing out."""
    result = run_python(
        """
        from engine.validation.validators import safe_validator
        validator = safe_validator({"type": "array", "uniqueItems": True})
        items = [{"a": index, "b": [index, "x"]} for index in range(60_000)]
        print(validator.is_valid(items), validator.is_valid([*items, {"b": [7, "x"], "a": 7}]))
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True False"


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"a": {}}, "additionalProperties": {"type": "string"},
          "unevaluatedProperties": False}, {"a": 1, "k": "v", "z": 5}),
        ({"anyOf": [{"properties": {"a": {"type": "integer"}}},
                    {"additionalProperties": {"type": "string"}}],
          "unevaluatedProperties": False}, {"a": 1, "z": 5}),
        ({"properties": {"a": {}}, "unevaluatedProperties": {"minLength": 5, "pattern": "^a"}},
         {"a": 1, "b": "b", "c": "aaaaaa"}),
        ({"if": {"required": ["a"]}, "then": {"properties": {"b": {}}},
          "else": {"properties": {"c": {}}}, "unevaluatedProperties": False},
         {"a": 1, "b": 2, "c": 3}),
        ({"$defs": {"d": {"properties": {"x": {}}}}, "$ref": "#/$defs/d",
          "dependentSchemas": {"y": {"properties": {"z": {}}}}, "unevaluatedProperties": False},
         {"x": 1, "y": 2, "z": 3, "w": 4}),
        ({"prefixItems": [{"type": "integer"}], "contains": {"type": "string"},
          "unevaluatedItems": False}, [1, "x", 3, None]),
        ({"allOf": [{"prefixItems": [{}, {}]}], "unevaluatedItems": {"type": "string"}},
         [1, 2, "x", 4]),
    ],
)
def test_unevaluated_keywords_keep_jsonschemas_verdicts_and_wording(
    schema: Any, instance: Any
) -> None:
    assert messages(schema, instance) == stock(schema, instance)


@pytest.mark.slow
def test_unevaluated_keywords_over_tens_of_thousands_of_keys_answer_at_once() -> None:
    """jsonschema gathers the evaluated keys in a list and looks each key up in it: hours
    for 100,000 keys, so a regression shows as the child process timing out."""
    result = run_python(
        """
        from engine.validation.validators import safe_validator
        keys = {f"k{index}": "v" for index in range(100_000)}
        objects = safe_validator({"additionalProperties": {"type": "string"},
                                  "unevaluatedProperties": False})
        items = safe_validator({"contains": {"type": "string"}, "unevaluatedItems": False})
        print(objects.is_valid(keys), objects.is_valid({**keys, "z": 1}),
              items.is_valid(list(keys.values())), items.is_valid([*keys.values(), 1]))
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True False True False"
