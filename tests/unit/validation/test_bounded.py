"""The bounded pure validator: jsonschema's wording, no branch errors kept, errors capped."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.validation.bounded import MESSAGE_CHARS, bounded, locate
from engine.validation.refs import LOCAL_ONLY
from engine.validation.validators import SAFE_FORMATS, SafeValidator


@pytest.mark.parametrize(("schema", "value"), [
    ({"anyOf": [{"type": "string"}, {"minimum": 3}]}, 1),
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 1),
    ({"oneOf": [{"type": "string"}, {"type": "null"}]}, 1),
    ({"not": {"type": "integer"}}, 1),
    ({"enum": ["a", 1, None]}, "b"),
    ({"const": {"a": 1}}, {"a": 2}),
    ({"properties": {"a": {}}, "unevaluatedProperties": False}, {"a": 1, "b": 2, "c": 3}),
    ({"prefixItems": [{}], "unevaluatedItems": False}, [1, 2, 3]),
    ({"uniqueItems": True}, [[1], [1.0]]),
])
def test_the_bounded_validator_words_errors_as_jsonschema_does(
    schema: dict[str, Any], value: Any
) -> None:
    mine = bounded(SafeValidator)(schema, registry=LOCAL_ONLY, format_checker=SAFE_FORMATS)
    stock = Draft202012Validator(schema)
    assert [e.message for e in mine.iter_errors(value)] == [
        e.message for e in stock.iter_errors(value)]


def test_at_most_the_errors_asked_for_each_cut_and_whether_there_are_more() -> None:
    validator = bounded(SafeValidator)({"additionalProperties": {"enum": ["x" * 400]}},
                                       registry=LOCAL_ONLY, format_checker=SAFE_FORMATS)
    found = locate(validator, {f"k{i}": "y" * 1_000 for i in range(50)}, most=3)
    assert len(found.errors) == 3 and found.more and found.stopped is None
    assert all(len(error.message) <= MESSAGE_CHARS for error in found.errors)
