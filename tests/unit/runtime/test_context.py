"""Seed 002 context helpers: one sanitizing rule, the seed's fallbacks, and context policies."""

from __future__ import annotations

from engine.config.models import ContextPolicy
from engine.runtime.context import (
    HANDOFF_CONTROL_FLAGS,
    HandoffContext,
    build_handoff_system_vars,
    sanitize_handoff_context,
)


def test_sanitize_drops_control_flags_as_in_the_seed_example() -> None:
    raw = {"reason": "fraud inquiry", "success": True, "target_agent": "FraudAgent"}
    assert sanitize_handoff_context(raw) == {"reason": "fraud inquiry"}


def test_sanitize_drops_every_control_flag_and_empty_values_but_keeps_false_and_zero() -> None:
    raw = {flag: "x" for flag in HANDOFF_CONTROL_FLAGS}
    raw |= {"none": None, "blank": "", "list": [], "map": {}, "no": False, "zero": 0}
    assert sanitize_handoff_context(raw) == {"no": False, "zero": 0}


def test_sanitize_of_a_non_mapping_is_empty() -> None:
    assert sanitize_handoff_context(["reason"]) == {}
    assert sanitize_handoff_context(None) == {}


def test_system_vars_follow_the_seed_fallbacks_and_carry_session_vars() -> None:
    system_vars = build_handoff_system_vars(
        source_agent="Concierge",
        target_agent="FraudAgent",
        tool_result={"handoff_summary": "User suspects fraud", "success": True},
        tool_args={"reason": "fraud inquiry"},
        current_system_vars={"session_profile": {"name": "Ana"}, "client_id": "123", "x": 1},
        user_last_utterance="I think my card was stolen",
    )
    assert system_vars == {
        "handoff_reason": "User suspects fraud",
        "previous_agent": "Concierge",
        "active_agent": "FraudAgent",
        "handoff_context": {
            "user_last_utterance": "I think my card was stolen",
            "details": "I think my card was stolen",
        },
        "handoff_message": None,
        "details": "I think my card was stolen",
        "user_last_utterance": "I think my card was stolen",
        "session_profile": {"name": "Ana"},
        "client_id": "123",
    }


def test_reason_falls_back_to_context_then_arguments_then_unspecified() -> None:
    common = {"source_agent": "a", "target_agent": "b", "current_system_vars": {}}
    from_context = build_handoff_system_vars(
        tool_result={"handoff_context": {"reason": "ctx"}}, tool_args={"reason": "arg"}, **common
    )
    from_args = build_handoff_system_vars(tool_result={}, tool_args={"reason": "arg"}, **common)
    nothing = build_handoff_system_vars(tool_result={}, tool_args={}, **common)
    assert from_context["handoff_reason"] == "ctx"
    assert from_args["handoff_reason"] == "arg"
    assert nothing["handoff_reason"] == "unspecified"


def test_session_overrides_pass_through_but_never_inside_the_context() -> None:
    system_vars = build_handoff_system_vars(
        source_agent="a",
        target_agent="b",
        tool_result={
            "session_overrides": {"voice": "nova"},
            "handoff_context": {"session_overrides": {"voice": "x"}, "account": "42"},
        },
        tool_args={},
        current_system_vars={},
    )
    assert system_vars["session_overrides"] == {"voice": "nova"}
    assert system_vars["handoff_context"] == {"account": "42"}


def test_context_policy_of_the_target_filters_the_handoff_context() -> None:
    result = {"handoff_context": {"account": "42", "pin_hint": "secret", "reason": "r"}}
    common = {"source_agent": "a", "target_agent": "b", "tool_args": {}, "current_system_vars": {}}
    carry = build_handoff_system_vars(
        tool_result=result, policy=ContextPolicy(share="carry", carry=("account",)), **common
    )
    none = build_handoff_system_vars(
        tool_result=result, policy=ContextPolicy(share="none"), **common
    )
    assert carry["handoff_context"] == {"account": "42"}
    assert none["handoff_context"] == {}


def test_handoff_context_to_system_vars_sanitizes_its_data() -> None:
    context = HandoffContext(
        source_agent="Concierge",
        target_agent="FraudAgent",
        reason="card stolen",
        user_last_utterance="help",
        context_data={"caller": "John", "success": True},
        greeting="Hi, fraud desk here.",
    )
    assert context.to_system_vars() == {
        "previous_agent": "Concierge",
        "active_agent": "FraudAgent",
        "handoff_reason": "card stolen",
        "user_last_utterance": "help",
        "details": "help",
        "handoff_context": {"caller": "John"},
        "greeting": "Hi, fraud desk here.",
    }
