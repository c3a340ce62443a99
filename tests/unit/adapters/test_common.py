"""What every adapter reads from an agent's spec: instructions, greeting, voice, tools, and the
handoff brief. Pure functions on real config models; no framework needed."""

from __future__ import annotations

from typing import Any

import pytest

from engine.adapters.common import (
    greeting_for,
    handoff_brief,
    instructions_for,
    not_in_team,
    tools_for,
    voice_for,
    with_brief,
)
from engine.config.models import AgentSpec
from engine.errors import UsageError


def agent(**metadata: Any) -> AgentSpec:
    return AgentSpec.model_validate(
        {"name": "fraud_agent", "description": "Investigates fraud.", "metadata": metadata}
    )


@pytest.mark.parametrize(("metadata", "expected"), [
    ({"instructions": " Secure the account first. ", "prompt": "Ignored."},
     "Secure the account first."),
    ({"prompt": "You are the fraud desk. Be calm."}, "You are the fraud desk. Be calm."),
    ({"prompt": "prompts/fraud_agent.jinja"}, "You are fraud_agent: Investigates fraud."),
    ({}, "You are fraud_agent: Investigates fraud."),
], ids=["instructions", "inline-prompt", "prompt-file", "description"])
def test_instructions(metadata: dict[str, Any], expected: str) -> None:
    assert instructions_for(agent(**metadata)) == expected


def test_greeting_and_voice() -> None:
    spec = agent(greeting="Fraud team.", return_greeting="Welcome back.",
                 voice={"name": "en-US-AndrewNeural"})
    assert greeting_for(spec) == "Fraud team."
    assert greeting_for(spec, returning=True) == "Welcome back."
    assert greeting_for(agent(greeting="Hi."), returning=True) == "Hi."
    assert greeting_for(agent()) is None
    assert voice_for(spec) == "en-US-AndrewNeural"
    assert voice_for(agent(voice="alloy")) == "alloy" and voice_for(agent()) is None


def test_brief_only_for_the_agent_the_last_handoff_reached() -> None:
    system_vars = {"previous_agent": "concierge", "active_agent": "fraud_agent",
                   "handoff_reason": "stolen card", "details": "last night",
                   "handoff_context": {"card_last4": "4421"}}
    brief = handoff_brief(system_vars)
    assert brief.splitlines() == [
        "You took over this conversation from concierge.", "Reason: stolen card.",
        "Details: last night", 'Context: {"card_last4": "4421"}']
    assert with_brief("Base.", system_vars, "fraud_agent") == f"Base.\n\n{brief}"
    assert with_brief("Base.", system_vars, "claims") == "Base."
    assert handoff_brief({}) == "" and with_brief("Base.", {}, "fraud_agent") == "Base."


def test_tools_come_from_metadata_through_the_toolbox() -> None:
    spec = agent(tools=["freeze_card", "handoff_claims", "open_case"])
    toolbox = {"freeze_card": "F", "open_case": "O", "unused": "U"}
    assert tools_for(spec, toolbox, {"handoff_claims"}) == ["F", "O"]
    assert tools_for(spec, None, {"handoff_claims"}) == []
    with pytest.raises(UsageError) as error:
        tools_for(spec, {"unused": "U"}, {"handoff_claims"})
    assert str(error.value) == ("agent 'fraud_agent': metadata.tools names 'freeze_card', "
                                "'open_case', which the toolbox lacks; it has: unused")


def test_not_in_team_says_what_to_do() -> None:
    assert "rebuild them after a reload (serving config v9)" in str(not_in_team("claims", "v9"))
