"""The JSON Schemas and the pydantic models agree on every document of the corpus."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.errors import SchemaValidationError
from engine.specs import list_schemas, load_schema, parse_spec, validate_quietly
from engine.specs.models import MODEL_BY_SCHEMA

from .corpus import CASES, Case


def _model_accepts(case: Case) -> bool:
    try:
        MODEL_BY_SCHEMA[case.schema].model_validate(case.document)
    except ValidationError:
        return False
    return True


def _parses(case: Case) -> bool:
    try:
        parse_spec(case.document, case.schema)
    except SchemaValidationError:
        return False
    return True


@pytest.mark.parametrize("case", CASES, ids=[f"{c.schema}:{c.name}" for c in CASES])
def test_schema_and_model_agree(case: Case) -> None:
    schema_accepts, message = validate_quietly(case.document, case.schema)
    assert _parses(case) is case.valid
    if case.model_only:
        assert schema_accepts, "a model-only rule must not be rejected by the schema"
        assert not _model_accepts(case)
    elif case.schema_only:
        assert not schema_accepts and _model_accepts(case)
    else:
        assert schema_accepts is case.valid, message
        assert _model_accepts(case) is case.valid


def test_every_cross_field_rule_is_violated_somewhere() -> None:
    broken = {c.schema for c in CASES if c.name.startswith("rule-") and not c.valid}
    assert broken == set(list_schemas())
    assert sum(c.name.startswith("rule-") for c in CASES) >= 16


@pytest.mark.parametrize("name", sorted(MODEL_BY_SCHEMA))
def test_schema_examples_pass_both_and_dumps_round_trip(name: str) -> None:
    examples = load_schema(name)["examples"]
    assert examples
    for example in examples:
        assert validate_quietly(example, name) == (True, "")
        model = MODEL_BY_SCHEMA[name].model_validate(example)
        assert validate_quietly(model.model_dump(mode="json"), name) == (True, "")
