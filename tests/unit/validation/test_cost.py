"""The cost of a schema worked out from the schema alone: loops, fan-out and recursion that
grows with depth are found, bounded recursion is not, and the count is a true upper bound of
the keyword applications the pure validator makes (checked by counting them)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from engine.validation import bounded as bounded_module
from engine.validation import unevaluated as unevaluated_module
from engine.validation.audit import schema_findings
from engine.validation.bounded import bounded
from engine.validation.cost import PER_VALUE_LIMIT, REPEAT_LIMIT, cost_findings, schema_cost
from engine.validation.metaschema import schema_error
from engine.validation.refs import LOCAL_ONLY
from engine.validation.shown import quoted
from engine.validation.validators import SAFE_FORMATS, SafeValidator
from tests.unit.validation.strategies import PAYLOADS, SCHEMAS, values_in

NODE = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}
GROWING = {"$defs": {"n": {"anyOf": [NODE, {**copy.deepcopy(NODE), "maxProperties": 9}]}},
           "$ref": "#/$defs/n"}
FAN_OUT = {"$defs": {**{f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"},
                                             {"$ref": f"#/$defs/d{i + 1}", "maxLength": 3}]}
                        for i in range(20)}, "d20": {"type": "integer"}},
           "$ref": "#/$defs/d0"}
BOUNDED = {
    "flat": {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(40)},
             "required": ["p1"], "additionalProperties": False},
    "tree": {"$defs": {"t": {"type": "object", "properties": {
        "v": {"type": "integer"}, "left": {"$ref": "#/$defs/t"},
        "right": {"$ref": "#/$defs/t"}}}}, "$ref": "#/$defs/t"},
    "json-value": {"$defs": {"v": {"anyOf": [
        {"type": ["string", "number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": "#/$defs/v"}},
        {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}]}},
        "$ref": "#/$defs/v"},
    "mutual": {"$defs": {"a": {"properties": {"x": {"$ref": "#/$defs/b"}}},
                         "b": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"},
    "boolean": {"not": {}},
    "true": True,
    "false": False,
}


@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_schemas_of_every_shape_with_a_bounded_cost(name: str) -> None:
    cost = schema_cost(BOUNDED[name])
    assert cost.bounded and cost.per_value <= 20 and cost.repeats == 1
    assert cost_findings(BOUNDED[name]) == []


def test_wide_schemas_and_large_enums_are_bounded_and_never_reported() -> None:
    wide = {"oneOf": [{"type": "object", "required": [f"k{i}"]} for i in range(500)],
            "properties": {"code": {"enum": [f"c{i}" for i in range(2_000)]}}}
    cost = schema_cost(wide)
    assert cost.bounded and cost.root > PER_VALUE_LIMIT and cost.repeats == 1
    assert cost_findings(wide) == []


def test_recursion_through_two_branches_grows_with_depth() -> None:
    cost = schema_cost(GROWING)
    assert not cost.bounded and cost.repeats > REPEAT_LIMIT
    assert cost.recursion == ("$defs", "n", "anyOf", 0, "properties", "c", "$ref")


def test_fan_out_without_recursion_is_counted_exactly() -> None:
    cost = schema_cost(FAN_OUT)
    assert cost.recursion is None and cost.repeats == 2**20 and not cost.bounded
    [finding] = cost_findings(FAN_OUT)
    assert (finding.kind, finding.path) == ("cost", ())


@pytest.mark.parametrize(("schema", "where"), [
    ({"$ref": "#"}, ("$ref",)),
    ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, ("anyOf", 1, "$ref")),
    ({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"if": {"$ref": "#/$defs/a"}}},
      "properties": {"x": {"$ref": "#/$defs/a"}}}, ("$defs", "a", "allOf", 0, "$ref")),
])
def test_a_loop_on_one_value_is_found_once_at_a_ref_of_it(
    schema: dict[str, Any], where: tuple[Any, ...]
) -> None:
    [finding] = cost_findings(schema)
    assert (finding.kind, finding.path) == ("loop", where)


def test_the_annotation_walk_of_unevaluated_keywords_is_counted() -> None:
    plain = {"anyOf": [{"allOf": [{"properties": {"a": {}}}]}], "properties": {"b": {}}}
    walked = {**plain, "unevaluatedProperties": False}
    assert schema_cost(walked).root > schema_cost(plain).root


def applications(schema: dict[str, Any], payload: Any, monkeypatch: pytest.MonkeyPatch) -> int:
    """Keyword applications (and annotation-walk visits) of the pure validator on `payload`."""
    count = [0]

    def counted(*_: Any) -> None:
        count[0] += 1

    monkeypatch.setattr(bounded_module, "charge_reading", counted)
    monkeypatch.setattr(unevaluated_module, "charge", counted)
    validator = bounded(SafeValidator)(schema, registry=LOCAL_ONLY, format_checker=SAFE_FORMATS)
    for _ in validator.iter_errors(quoted(payload)):
        pass
    return count[0]


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(schema=SCHEMAS, payload=PAYLOADS)
def test_the_count_bounds_the_applications_of_the_pure_validator(
    schema: dict[str, Any], payload: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assume(schema_error(schema) is None and not schema_findings(schema))
    cost = schema_cost(schema)
    assume(cost.bounded)
    with monkeypatch.context() as patched:
        found = applications(schema, payload, patched)
    assert found <= cost.root + cost.per_value * (values_in(payload) - 1)
