"""Engine errors as agent_error_taxonomy_v1 instances."""

from __future__ import annotations

import pytest

from engine import errors
from engine.guard.core import ViolationContext
from engine.specs import engine_taxonomy, to_agent_error, validate, validate_error
from engine.specs.models import ErrorCategory

VIOLATION = errors.HandoffViolation(
    ViolationContext("billing", "input", "amount", "number", "x", "str"), []
)
CASES = [
    (errors.ParseError("no JSON"), 101, ErrorCategory.PLANNING),
    (VIOLATION, 301, ErrorCategory.CONTEXT),
    (errors.SchemaNotFoundError("x"), 303, ErrorCategory.CONTEXT),
    (errors.RoutingError("not_allowed", "a may not hand off to b"), 401, ErrorCategory.SECURITY),
    (errors.StoreError("/tmp/x.db", "locked"), 501, ErrorCategory.RESOURCE),
    (errors.RoutingError("loop", "a -> b -> a"), 601, ErrorCategory.ORCHESTRATION),
    (errors.IllegalTransition("h-1", "completed", "accept"), 610, ErrorCategory.ORCHESTRATION),
    (errors.RecordNotFound("h-9"), 611, ErrorCategory.ORCHESTRATION),
    (RuntimeError(""), 699, ErrorCategory.ORCHESTRATION),
]


@pytest.mark.parametrize(("error", "code", "category"), CASES)
def test_errors_map_to_valid_taxonomy_instances(
    error: BaseException, code: int, category: ErrorCategory
) -> None:
    found = to_agent_error(error, agent_id="triage", run_id="r-1", step_index=2)
    assert (found.code, found.category) == (code, category)
    assert found.message and found.context["error_type"] == type(error).__name__
    assert validate_error(found.model_dump(mode="json")) is True
    assert engine_taxonomy().entry(code) is not None


def test_the_cause_is_recorded() -> None:
    try:
        try:
            raise OSError("disk full")
        except OSError as inner:
            raise errors.StoreError("/x.db", "cannot write") from inner
    except errors.StoreError as error:
        found = to_agent_error(error)
    assert found.cause == "OSError: disk full"
    assert found.recoverable is True


def test_payload_refusals_and_failed_handoffs_have_codes() -> None:
    from engine.specs.taxonomy import CODE_BY_FAILURE, agent_error

    refused = to_agent_error(errors.RoutingError("invalid_payload", "reason: too short"))
    assert (refused.code, refused.category, refused.recoverable) == (
        301, ErrorCategory.CONTEXT, True)
    for failure, (code, recoverable) in CODE_BY_FAILURE.items():
        found = agent_error(code, f"handoff failed ({failure})", recoverable=recoverable,
                            context={"failure": failure})
        assert validate_error(found.model_dump(mode="json")) is True
    assert agent_error(502, "x" * 2000, recoverable=True).message == "x" * 1024


def test_the_engine_codes_are_a_valid_catalogue() -> None:
    catalogue = engine_taxonomy()
    assert validate(catalogue.model_dump(mode="json"), "agent_error_taxonomy_v1") is True
    codes = [entry.code for category in catalogue.categories for entry in category.errors]
    assert len(codes) == len(set(codes)) and {101, 301, 401, 502, 605, 699} <= set(codes)
    assert catalogue.entry(605).name == "NO_ROUTE"  # type: ignore[union-attr]
    assert catalogue.entry(401).recoverable is False  # type: ignore[union-attr]


def test_a_single_error_is_not_a_catalogue() -> None:
    error = to_agent_error(errors.RecordNotFound("h-1")).model_dump(mode="json")
    with pytest.raises(errors.SchemaValidationError, match="taxonomy_version"):
        validate(error, "agent_error_taxonomy_v1")
    with pytest.raises(errors.SchemaValidationError, match=r"error_instance.*category"):
        validate_error({**error, "category": "planning"})


@pytest.mark.parametrize("value", ["boom", {"code": 101}, None, ValueError])
def test_a_value_that_is_not_an_exception_is_a_usage_error(value: object) -> None:
    with pytest.raises(errors.UsageError) as caught:
        to_agent_error(value)  # type: ignore[arg-type]
    assert str(caught.value) == f"to_agent_error needs an exception, not {type(value).__name__}"
