"""Payload specs: pydantic models (one or several) and inline JSON Schemas."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from engine.pump import PayloadSpec
from engine.pump.payloads import PayloadRejected
from tests.patience import HANG_S
from tests.sandbox import run_python


class Task(BaseModel):
    text: str


class Result(BaseModel):
    value: str


def test_model_accepts_instances_dicts_and_json() -> None:
    spec = PayloadSpec.of_model(Task)
    task = Task(text="x")
    assert spec.validate(task) is task
    assert spec.validate({"text": "y"}) == Task(text="y")
    assert spec.validate('{"text": "z"}') == Task(text="z")
    assert spec.type_name(task) == "Task"


def test_model_rejections_say_why() -> None:
    spec = PayloadSpec.of_model(Task)
    with pytest.raises(PayloadRejected, match=r"Task: text: Field required"):
        spec.validate({})
    with pytest.raises(PayloadRejected, match="expected a Task payload, got Result"):
        spec.validate(Result(value="v"))


def test_several_models() -> None:
    spec = PayloadSpec.of_model(Task, Result)
    assert spec.name == "Task | Result"
    assert spec.validate({"value": "v"}) == Result(value="v")
    assert "anyOf" in spec.json_schema()
    with pytest.raises(PayloadRejected):
        spec.validate({"other": 1})


def test_inline_json_schema() -> None:
    schema = {"title": "Order", "type": "object", "required": ["qty"],
              "properties": {"qty": {"type": "integer", "minimum": 1}}}
    spec = PayloadSpec.of_json_schema(schema, default_name="orders")
    assert spec.name == "Order"
    assert spec.validate({"qty": 2}) == {"qty": 2}
    assert spec.validate(b'{"qty": 3}') == {"qty": 3}
    with pytest.raises(PayloadRejected, match="/qty: 0 is less than the minimum of 1"):
        spec.validate({"qty": 0})
    with pytest.raises(PayloadRejected, match="not valid JSON"):
        spec.validate("{")
    copy = spec.json_schema()
    copy["title"] = "changed"
    assert spec.json_schema()["title"] == "Order"


def test_any_accepts_everything() -> None:
    assert PayloadSpec.any().validate(object) is object
    assert PayloadSpec.any().json_schema() == {}


@pytest.mark.slow
def test_a_listener_schema_check_is_bounded_whatever_the_schema() -> None:
    """A recursive two-branch `anyOf` (2**depth checks unbounded) and a `$ref` loop: the
    listener's payload check ends within its work budget; the check runs in a child process
    with a deadline, so a regression fails instead of hanging."""
    result = run_python("""
    import jsonschema
    from engine.pump import PayloadSpec
    from engine.pump.payloads import PayloadRejected

    node = {"type": "object", "properties": {"c": {"$ref": "#/$defs/n"}}}
    spec = PayloadSpec.of_json_schema(
        {"$defs": {"n": {"anyOf": [node, {**node, "maxProperties": 10}]}}, "$ref": "#/$defs/n"},
        default_name="tree")
    payload = {"c": 5}
    for _ in range(30):
        payload = {"c": payload}
    try:
        spec.validate(payload)
    except PayloadRejected as refused:
        print("refused", "budget" in str(refused))
    try:
        PayloadSpec.of_json_schema({"$defs": {"l": {"$ref": "#/$defs/l"}}, "$ref": "#/$defs/l"},
                                   default_name="loop")
    except jsonschema.SchemaError as error:
        print("loop refused")
    """, timeout=HANG_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["refused True", "loop refused"]
