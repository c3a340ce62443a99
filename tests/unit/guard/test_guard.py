"""Every guard behaviour, each run against a sync and an async node (the `nodes` fixture)."""

from __future__ import annotations

import asyncio
import inspect
import json
from types import MappingProxyType
from typing import Any

import pytest
from pydantic import BaseModel, Field

from engine.errors import HandoffViolation, ParseError, UsageError
from engine.guard import RetryState, guard, parse_json, retry


class Request(BaseModel):
    query: str


class Answer(BaseModel):
    name: str
    score: int = Field(ge=0, le=10)
    tags: list[str] = Field(default_factory=list, max_length=3)


GOOD = {"name": "ada", "score": 3}
ANSWER_SCHEMA = {
    "type": "object",
    "required": ["name", "score"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "score": {"type": "integer", "minimum": 0},
        "due": {"type": "string", "format": "date-time"},
    },
}


def outputs(*values: Any) -> Any:
    """A body returning the given values in turn (the last one repeats)."""
    queue = list(values)

    def body(state: Any, retry_state: Any = None) -> Any:
        value = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(value, Exception):
            raise value
        return value

    return body


def test_valid_output_passes_through_unchanged(nodes: Any) -> None:
    result = GOOD.copy()
    node = guard(output=Answer)(nodes.build(outputs(result)))
    assert nodes.call(node, {"query": "q"}) is result


@pytest.mark.parametrize("value", [("a", 1), None, {"any": "thing"}])
def test_without_output_schema_any_value_passes(nodes: Any, value: Any) -> None:
    node = guard(input=Request, max_attempts=2)(nodes.build(outputs(value)))
    assert nodes.call(node, {"query": "q"}) == value


def test_missing_output_field_names_node_field_and_fix(nodes: Any) -> None:
    node = guard(output=Answer, node_name="writer")(nodes.build(outputs({"name": "ada"})))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    violation = caught.value
    assert violation.node_name == "writer"
    assert violation.field_path == "score"
    assert violation.context.contract_type == "output"
    assert violation.context.received == "<missing>"
    assert violation.context.suggestion == "Add 'score' to the output data"
    assert "HandoffViolation in 'writer'" in str(violation)


@pytest.mark.parametrize(
    ("bad", "field", "suggestion"),
    [
        ({"name": 5, "score": 1}, "name", "Convert 'name' to string"),
        ({"name": "a", "score": "many"}, "score", "Convert 'score' to integer"),
        ({"name": "a", "score": 11}, "score", "Decrease the value of 'score'"),
        ({"name": "a", "score": -1}, "score", "Increase the value of 'score'"),
        ({"name": "a", "score": 1, "tags": ["a"] * 4}, "tags",
         "Reduce the number of items in 'tags'"),
    ],
)
def test_wrong_values_get_field_and_suggestion(
    nodes: Any, bad: dict[str, Any], field: str, suggestion: str
) -> None:
    node = guard(output=Answer)(nodes.build(outputs(bad)))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == field
    assert caught.value.context.suggestion == suggestion
    assert caught.value.node_name == ("node" if nodes.mode == "sync" else "anode")


@pytest.mark.parametrize("value", ["just text", 42, None, ["a", "b"]])
def test_non_dict_output_is_a_root_violation(nodes: Any, value: Any) -> None:
    node = guard(output=Answer)(nodes.build(outputs(value)))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == "<root>"
    assert caught.value.context.received_type == type(value).__name__
    assert caught.value.context.suggestion is not None


def test_invalid_input_is_rejected_before_the_call(nodes: Any) -> None:
    calls: list[Any] = []
    node = guard(input=Request, max_attempts=3)(nodes.build(lambda s: calls.append(s) or GOOD))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {"query": 7})
    assert caught.value.context.contract_type == "input"
    assert caught.value.field_path == "query"
    assert caught.value.total_attempts == 1
    assert calls == []
    assert nodes.call(node, {"query": "ok"}) == GOOD


def test_input_is_the_first_parameter_when_none_is_named_state(nodes: Any) -> None:
    if nodes.mode == "sync":
        def handle(retry: Any, request: Any) -> Any:
            return request
    else:
        async def handle(retry: Any, request: Any) -> Any:
            return request
    node = guard(input=Request)(handle)
    with pytest.raises(HandoffViolation):
        nodes.call(node, request={"nope": 1})
    assert nodes.call(node, request={"query": "x"}) == {"query": "x"}


def test_retry_with_feedback_until_valid(nodes: Any) -> None:
    seen: list[tuple[int, str | None]] = []

    def body(state: Any) -> Any:
        seen.append((retry.attempt, retry.feedback()))
        return GOOD if retry.is_retry else {"name": "ada"}

    node = guard(output=Answer, max_attempts=3)(nodes.build(body))
    assert nodes.call(node, {}) == GOOD
    assert [attempt for attempt, _ in seen] == [1, 2]
    assert seen[0][1] is None
    feedback = seen[1][1]
    assert feedback is not None
    assert "score" in feedback and "Add 'score' to the output data" in feedback


def test_exhausted_attempts_keep_every_diagnostic(nodes: Any) -> None:
    node = guard(output=Answer, max_attempts=3)(nodes.build(outputs({"name": "x"})))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    violation = caught.value
    assert violation.total_attempts == 3
    assert [record.attempt for record in violation.history] == [1, 2, 3]
    assert all(r.diagnostic and r.diagnostic.cause == "validation" for r in violation.history)
    document = violation.to_dict()
    assert json.loads(json.dumps(document))["total_attempts"] == 3
    assert document["field_path"] == "score"


def test_retry_state_is_injected(nodes: Any) -> None:
    states: list[RetryState] = []

    def body(state: Any, injected: RetryState) -> Any:
        states.append(injected)
        return GOOD if injected.attempt == 2 else {}

    node = guard(output=Answer, max_attempts=2)(nodes.build(body, with_retry=True))
    assert nodes.call(node, {}) == GOOD
    assert [(s.attempt, s.max_attempts, s.remaining) for s in states] == [(1, 2, 1), (2, 2, 0)]
    assert states[1].is_final_attempt and states[1].last_error is not None
    assert len(states[1].history) == 1


def test_a_retry_argument_given_by_the_caller_is_kept(nodes: Any) -> None:
    node = guard(output=Answer)(nodes.build(lambda s, r: {"name": r, "score": 1},
                                            with_retry=True))
    assert nodes.call(node, {}, retry="mine") == {"name": "mine", "score": 1}
    assert nodes.call(node, {}, "positional") == {"name": "positional", "score": 1}


def test_parse_errors_are_retried(nodes: Any) -> None:
    replies = iter(["Sorry, I can't", '```json\n{"name": "ada", "score": 3}\n```'])
    node = guard(output=Answer, max_attempts=2)(nodes.build(lambda s: parse_json(next(replies))))
    assert nodes.call(node, {}) == GOOD


def test_parse_error_on_single_attempt_is_a_violation_in_both_modes(nodes: Any) -> None:
    node = guard(output=Answer)(nodes.build(lambda s: parse_json("no json here")))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == "<parse>"
    assert caught.value.history[0].diagnostic is not None
    assert caught.value.history[0].diagnostic.cause == "parse"


def test_json_decode_error_on_single_attempt_passes_through_unchanged(nodes: Any) -> None:
    raised: list[json.JSONDecodeError] = []

    def body(state: Any) -> Any:
        try:
            return json.loads("{broken")
        except json.JSONDecodeError as error:
            raised.append(error)
            raise

    node = guard(output=Answer)(nodes.build(body))
    with pytest.raises(json.JSONDecodeError) as caught:
        nodes.call(node, {})
    assert caught.value is raised[0]


def test_json_decode_error_is_retried_when_attempts_remain(nodes: Any) -> None:
    replies = iter(["{broken", '{"name": "ada", "score": 3}'])
    node = guard(output=Answer, max_attempts=2)(nodes.build(lambda s: json.loads(next(replies))))
    assert nodes.call(node, {}) == GOOD


def test_retry_on_validation_only_lets_parse_errors_through(nodes: Any) -> None:
    node = guard(output=Answer, max_attempts=3, retry_on=("validation",))(
        nodes.build(lambda s: parse_json("{{{"))
    )
    with pytest.raises(ParseError):
        nodes.call(node, {})


def test_retry_on_parse_only_does_not_retry_validation(nodes: Any) -> None:
    calls: list[int] = []
    node = guard(output=Answer, max_attempts=3, retry_on=("parse",))(
        nodes.build(lambda s: calls.append(1) or {"name": "x"})
    )
    with pytest.raises(HandoffViolation):
        nodes.call(node, {})
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("on_fail", "expected"),
    [("return_none", None), ("return_input", {"query": "q"})],
)
def test_on_fail_modes(nodes: Any, on_fail: Any, expected: Any) -> None:
    node = guard(output=Answer, on_fail=on_fail, max_attempts=2)(nodes.build(outputs({})))
    assert nodes.call(node, {"query": "q"}) == expected


def test_on_fail_callable_gets_the_violation(nodes: Any) -> None:
    node = guard(output=Answer, on_fail=lambda v: ("fallback", v.field_path))(
        nodes.build(outputs({"score": 1}))
    )
    assert nodes.call(node, {}) == ("fallback", "name")


def test_other_exceptions_propagate_and_state_is_reset(nodes: Any) -> None:
    node = guard(output=Answer, max_attempts=3)(nodes.build(outputs(RuntimeError("boom"))))
    with pytest.raises(RuntimeError, match="boom"):
        nodes.call(node, {})
    assert retry.get() is None
    assert retry.attempt == 1 and retry.feedback() is None


def test_json_schema_contract(nodes: Any) -> None:
    node = guard(output=MappingProxyType(ANSWER_SCHEMA), node_name="planner")(
        nodes.build(outputs({"score": 1}))
    )
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == "name"
    assert caught.value.context.suggestion == "Add 'name' to the output data"
    assert caught.value.node_name == "planner"


def test_json_schema_checks_formats(nodes: Any) -> None:
    bad = {"name": "a", "score": 1, "due": "tomorrow"}
    node = guard(output=ANSWER_SCHEMA)(nodes.build(outputs(bad)))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == "due"
    assert "date-time" in caught.value.context.expected


def test_bare_decorator_keeps_identity(nodes: Any) -> None:
    original = nodes.build(outputs("anything"))
    original.__doc__ = "Docs."
    node = guard(original)
    assert node.__name__ == original.__name__ and node.__doc__ == "Docs."
    assert node.__wrapped__ is original
    assert inspect.iscoroutinefunction(node) == (nodes.mode == "async")
    assert nodes.call(node, {}) == "anything"


def test_method_nodes(nodes: Any) -> None:
    class Agent:
        @guard(input=Request, output=Answer)
        def run(self, state: Any) -> Any:
            return GOOD

        @guard(input=Request, on_fail="return_input")
        def handle(self, request: Any) -> Any:
            return request

    assert Agent().run({"query": "q"}) == GOOD
    with pytest.raises(HandoffViolation):
        Agent().run({"query": 1})
    assert Agent().handle({"query": "q"}) == {"query": "q"}
    assert Agent().handle(request={"bad": 1}) == {"bad": 1}


@pytest.mark.parametrize(
    "kwargs",
    [{"max_attempts": 0}, {"retry_on": ("timeouts",)}, {"retry_on": "parse"},
     {"on_fail": "explode"},
     {"output": "not a schema"}, {"output": {"type": "nonsense"}},
     {"output": {"type": "object", "default": object()}}],
)
def test_bad_guard_arguments_are_usage_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        guard(**kwargs)(lambda state: state)


def test_async_on_fail_hook_is_awaited() -> None:
    async def hook(violation: HandoffViolation) -> str:
        return f"handled {violation.field_path}"

    @guard(output=Answer, on_fail=hook)
    async def node(state: Any) -> Any:
        return {"name": "x"}

    assert asyncio.run(node({})) == "handled score"


def test_async_on_fail_hook_on_a_sync_node_is_a_usage_error() -> None:
    async def hook(violation: HandoffViolation) -> None:
        return None

    with pytest.raises(UsageError, match="async on_fail hook"):
        guard(output=Answer, on_fail=hook)(lambda state: state)


def test_concurrent_async_calls_see_their_own_attempts() -> None:
    @guard(output=Answer, max_attempts=3)
    async def node(state: Any) -> Any:
        await asyncio.sleep(0.001 * state["delay"])
        seen = retry.attempt
        await asyncio.sleep(0.001)
        assert retry.attempt == seen
        return GOOD if retry.attempt == state["succeed_at"] else {}

    async def main() -> list[Any]:
        return await asyncio.gather(*(node({"delay": i, "succeed_at": i % 3 + 1})
                                      for i in range(6)))

    assert asyncio.run(main()) == [GOOD] * 6


@pytest.mark.parametrize(
    "reply", ["[" * 100_000 + "]" * 100_000, '{"name": ' + "1" * 5000 + "}"])
def test_json_python_cannot_hold_is_a_failed_attempt_like_any_parse_error(
    nodes: Any, reply: str
) -> None:
    calls: list[int] = []

    def body(state: Any) -> Any:
        calls.append(retry.attempt)
        return parse_json(reply)

    node = guard(output=Answer, max_attempts=3, on_fail="return_none")(nodes.build(body))
    assert nodes.call(node, {}) is None
    assert calls == [1, 2, 3]


def _deep_list(depth: int) -> list[Any]:
    deep: list[Any] = []
    for _ in range(depth):
        deep = [deep]
    return deep


@pytest.mark.parametrize("schema", [Answer, ANSWER_SCHEMA], ids=["pydantic", "json-schema"])
def test_huge_and_deep_values_get_a_short_diagnostic(nodes: Any, schema: Any) -> None:
    huge = {"name": 10**5000, "score": 1}
    deep = {"name": "ada", "score": -1, "notes": _deep_list(50_000)}
    node = guard(output=schema, max_attempts=2)(nodes.build(outputs(huge, deep)))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    first, second = (record.diagnostic for record in caught.value.history)
    assert first is not None and second is not None
    assert first.errors[0].startswith("name: expected ")
    assert first.errors[0].endswith(", got <integer of 16610 bits>")
    assert first.raw_output == "{'name': <integer of 16610 bits>, 'score': 1}"
    assert second.raw_output is not None and len(second.raw_output) == 500
    assert second.raw_output.endswith("[[[[...")
    assert all(len(line) < 500 for line in second.errors)


@pytest.mark.parametrize("score", [float("nan"), float("inf"), float("-inf")])
def test_numbers_json_cannot_carry_are_refused_as_the_engine_refuses_them(
    nodes: Any, score: float
) -> None:
    schema = {"type": "object", "properties": {"score": {"minimum": 0, "maximum": 1}}}
    node = guard(output=schema)(nodes.build(outputs({"score": score})))
    with pytest.raises(HandoffViolation) as caught:
        nodes.call(node, {})
    assert caught.value.field_path == "score"
    assert caught.value.context.expected == (
        f"{score!r} is not a finite number: JSON data cannot carry NaN or infinity")
    assert caught.value.context.suggestion == "Replace 'score' with a finite number"
