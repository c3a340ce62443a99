"""Handoff tool definitions: the handoffs an agent may make, in every vendor format."""

from __future__ import annotations

import pytest

from engine.errors import UsageError
from engine.routing.snapshot import Snapshot
from engine.runtime.tools import DEFAULT_PARAMETERS, TOOL_FORMATS, handoff_tools


def test_tools_list_only_targets_policy_allows(banking: Snapshot) -> None:
    # concierge may hand off to anyone, but claims accepts only fraud_agent and retired is off
    assert [tool.name for tool in handoff_tools(banking, "concierge")] == ["handoff_fraud_agent"]
    assert [tool.name for tool in handoff_tools(banking, "fraud_agent")] == []
    assert handoff_tools(banking, "claims") == []


def test_parameters_come_from_the_target_payload_schema(banking: Snapshot) -> None:
    (tool,) = handoff_tools(banking, "concierge")
    assert tool.parameters["required"] == ["card_last4"]
    assert tool.description == "Hand the conversation off to fraud_agent: Handles fraud."


def test_openai_and_anthropic_shapes(banking: Snapshot) -> None:
    (tool,) = handoff_tools(banking, "concierge")
    openai = TOOL_FORMATS["openai"](tool)
    anthropic = TOOL_FORMATS["anthropic"](tool)
    assert openai["type"] == "function"
    assert openai["function"]["name"] == "handoff_fraud_agent"
    assert openai["function"]["parameters"]["properties"] == {"card_last4": {"type": "string"}}
    assert anthropic["name"] == "handoff_fraud_agent"
    assert anthropic["input_schema"] == openai["function"]["parameters"]


def test_responses_and_realtime_shapes_are_flat(banking: Snapshot) -> None:
    (tool,) = handoff_tools(banking, "concierge")
    parameters = TOOL_FORMATS["openai"](tool)["function"]["parameters"]
    flat = {"type": "function", "name": "handoff_fraud_agent", "description": tool.description,
            "parameters": parameters}
    assert TOOL_FORMATS["openai-realtime"](tool) == flat
    # Responses defaults `strict` on, which rejects schemas with optional properties
    assert TOOL_FORMATS["openai-responses"](tool) == {**flat, "strict": False}


@pytest.mark.parametrize("name", sorted(TOOL_FORMATS))
def test_rendered_tools_are_copies_callers_may_change(banking: Snapshot, name: str) -> None:
    (tool,) = handoff_tools(banking, "concierge")
    rendered = TOOL_FORMATS[name](tool)
    schema = rendered.get("function", rendered)
    schema = schema.get("parameters", schema.get("input_schema"))
    schema["required"].append("x")
    assert tool.parameters["required"] == ["card_last4"]


def test_default_parameters_when_the_target_declares_no_schema() -> None:
    from .conftest import snapshot_of

    snapshot = snapshot_of(
        {"name": "concierge", "peers": ["claims"]},
        {"name": "claims", "handoff": {"trigger": "handoff_claims", "description": "Open one."}},
    )
    (tool,) = handoff_tools(snapshot, "concierge")
    assert tool.parameters == DEFAULT_PARAMETERS
    assert tool.parameters is not DEFAULT_PARAMETERS
    assert tool.description == "Open one."


def test_a_schema_without_a_type_is_given_the_object_type_model_apis_require() -> None:
    from .conftest import snapshot_of

    schema = {"properties": {"case_id": {"type": "string"}}, "required": ["case_id"]}
    snapshot = snapshot_of(
        {"name": "concierge", "peers": ["claims"]},
        {"name": "claims", "handoff": {"trigger": "handoff_claims"},
         "accepts": {"payload_schema": schema}},
    )
    (tool,) = handoff_tools(snapshot, "concierge")
    assert tool.parameters == {"type": "object", **schema}
    assert "type" not in snapshot.agents["claims"].accepts.payload_schema  # the config's own


def test_unknown_agent_is_a_usage_error(banking: Snapshot) -> None:
    with pytest.raises(UsageError, match="unknown agent 'ghost'"):
        handoff_tools(banking, "ghost")


def test_the_default_parameters_refuse_nothing_the_engine_accepts() -> None:
    """With no payload schema the engine checks no payload: the tool must not tell a model
    that arguments are required or forbidden (it would refuse calls the engine takes)."""
    from jsonschema import Draft202012Validator

    from engine.runtime.payloads import check_payload

    from .conftest import snapshot_of

    snapshot = snapshot_of({"name": "concierge", "peers": ["claims"]},
                           {"name": "claims", "handoff": {"trigger": "handoff_claims"}})
    (tool,) = handoff_tools(snapshot, "concierge")
    validator = Draft202012Validator(tool.parameters)
    for payload in ({}, {"reason": "x"}, {"reason": "x", "card_last4": "4421"}, {"details": "y"}):
        assert check_payload(snapshot, sender="concierge", target="claims", payload=payload) is None
        assert validator.is_valid(payload), payload
    assert set(tool.parameters["properties"]) == {"reason", "details"}
