"""The LangGraph-style adapter on plain dict states (no LangGraph installed)."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from pydantic import BaseModel

from engine.errors import HandoffViolation
from engine.guard import guarded_node, validate_state
from engine.guard.contracts import as_contract


class State(BaseModel):
    messages: list[str]
    next_agent: str


def test_guarded_node_validates_dict_states() -> None:
    @guarded_node(input={"type": "object", "required": ["messages"]}, output=State)
    def review(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [*state["messages"], "ok"], "next_agent": "writer"}

    assert review({"messages": []}) == {"messages": ["ok"], "next_agent": "writer"}
    with pytest.raises(HandoffViolation) as caught:
        review({})
    assert (caught.value.node_name, caught.value.field_path) == ("review", "messages")


def test_validate_state_returns_the_model_or_names_the_field() -> None:
    state = validate_state({"messages": ["hi"], "next_agent": "a"}, State)
    assert isinstance(state, State) and state.next_agent == "a"
    with pytest.raises(HandoffViolation) as caught:
        validate_state({"messages": "hi"}, State, node_name="pre_checkpoint")
    assert caught.value.context.contract_type == "state"
    assert caught.value.node_name == "pre_checkpoint"
    assert caught.value.field_path in {"messages", "next_agent"}


def test_validate_state_with_json_schema_returns_the_state() -> None:
    data = {"messages": []}
    assert validate_state(data, {"type": "object"}) is data


def test_json_schema_contracts_are_compiled_once_per_content() -> None:
    first = as_contract({"type": "object", "required": ["a"]})
    again = as_contract(MappingProxyType({"required": ["a"], "type": "object"}))
    assert first is again
    with pytest.raises(HandoffViolation):
        validate_state({}, {"type": "object", "required": ["a"]}, node_name="n")
