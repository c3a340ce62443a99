"""`SchemaCheck`: the compiled "valid?" where the schema's cost allows it, with the pure path's
own verdicts; the budgeted pure validator otherwise, and the compiled checker's own located
errors once locating them costs more than the base budget."""

from __future__ import annotations

from typing import Any

import pytest

from engine.validation import shown
from engine.validation.budget import BASE_UNITS, spending
from engine.validation.checker import SchemaCheck
from engine.validation.validators import safe_validator

NODE = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}


def verdict(schema: dict[str, Any], value: Any) -> bool:
    return not SchemaCheck(schema).check(value, most=5).errors


@pytest.mark.parametrize(("schema", "compiled"), [
    ({"type": "object", "properties": {"a": {"pattern": r"^\s$"}}}, True),
    ({"patternProperties": {"^[a-z]+$": {"type": "integer"}}}, True),
    ({"patternProperties": {"^x-.*$": {"type": "integer"}}}, False),
    ({"$defs": {"n": {"anyOf": [NODE, {**NODE, "maxProperties": 9}]}}, "$ref": "#/$defs/n"},
     False),
])
def test_the_compiled_check_runs_only_where_it_agrees_and_its_cost_is_bounded(
    schema: dict[str, Any], compiled: bool
) -> None:
    assert SchemaCheck(schema).compiled is compiled


@pytest.mark.parametrize(("schema", "value"), [
    ({"pattern": r"^\s$"}, "\u00a0"),  # ECMA's \s has it, RE2's does not
    ({"pattern": "^.$"}, "\u2028"),
    ({"multipleOf": 0.01}, 0.07),  # floating point: not a multiple for the pure path
    ({"format": "regex"}, "(?=lookahead)"),
    ({"format": "regex"}, "(" + "a?" * 2000 + "){150}"),
    ({"format": "date"}, "2024-02-30"),
    ({"format": "duration"}, "not a duration"),  # not asserted by the pure path
    ({"format": "uuid"}, "12345678-1234-1234-1234-1234567890ab"),
    ({"type": "integer"}, 1.0),
    ({"uniqueItems": True}, [1, True, 1.0]),
    ({"const": {"a": [1]}}, {"a": [1.0]}),
])
def test_the_compiled_verdict_is_the_pure_validators(schema: dict[str, Any], value: Any) -> None:
    assert SchemaCheck(schema).compiled
    assert verdict(schema, value) is safe_validator(schema).is_valid(value)


def test_work_done_in_the_pure_paths_code_is_charged_on_the_compiled_path() -> None:
    schema = {"type": "array", "items": {"format": "regex"}}
    value = ["a" * 400 + str(index) for index in range(2)]
    with spending(value) as budget:
        assert verdict(schema, value)
    assert not budget.exceeded and budget.spent >= 2 * 10 * 400


def test_a_check_that_runs_out_of_budget_says_so() -> None:
    schema = {"$defs": {"n": {"anyOf": [NODE, {**NODE, "maxProperties": 9}]}},
              "$ref": "#/$defs/n"}
    value: Any = 5
    for _ in range(40):
        value = {"c": value}
    found = SchemaCheck(schema).check(value, most=5)
    assert found.stopped is not None and found.errors == ()


def test_past_the_base_budget_the_compiled_checker_locates_the_errors() -> None:
    schema = {"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True,
                                                      "items": {"type": "object"}}}}
    items = [{"a": index} for index in range(20_000)]
    found = SchemaCheck(schema).check({"xs": [*items, {"a": 7}]}, most=5)
    [error] = found.errors
    assert found.stopped is None and list(error.absolute_path) == ["xs"]
    assert error.validator == "uniqueItems" and error.message.endswith("non-unique elements")
    assert len(error.message) <= 300


def test_locating_copies_no_more_of_a_large_payload_than_its_budget_pays_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = [0]

    class Counted(shown._Object):
        def __init__(self, *args: Any) -> None:
            made[0] += 1
            super().__init__(*args)

    monkeypatch.setattr(shown, "_Object", Counted)
    schema = {"type": "array", "uniqueItems": True, "items": {"type": "object"}}
    items = [{"a": index} for index in range(50_000)]
    found = SchemaCheck(schema).check([*items, {"a": 7}], most=5)
    assert [error.validator for error in found.errors] == ["uniqueItems"]
    assert made[0] <= BASE_UNITS // 2
