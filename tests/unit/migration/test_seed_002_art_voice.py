"""The art-voice-agent handoff inventory, statement by statement, against `engine`.

Agents come from the bundled banking config (the seed's agent YAMLs: concierge, fraud_agent,
card_recommendation, investment_advisor, compliance_desk...), loaded once.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine import (
    HandoffConfig,
    HandoffContext,
    HandoffProvider,
    HandoffResult,
    SessionAgentManager,
    UnifiedAgent,
    build_handoff_map,
    build_handoff_system_vars,
    load_config,
    sanitize_handoff_context,
)
from engine.errors import UsageError
from engine.runtime import tool_registry
from engine.runtime.tool_registry import ToolRegistry, is_handoff_tool, list_tools

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
AGENTS: dict[str, UnifiedAgent] = dict(load_config(BANKING).agents)


class Memo:
    """The runtime's session memo: get_context / set_context."""

    def __init__(self) -> None:
        self.context: dict[str, Any] = {}
        self.persisted = 0

    def get_context(self, key: str) -> Any:
        return self.context.get(key)

    def set_context(self, key: str, value: Any) -> None:
        self.context[key] = value

    async def persist_to_redis_async(self, redis: Any) -> None:
        self.persisted += 1


def test_build_handoff_map_from_agent_declarations() -> None:
    handoff_map = build_handoff_map(AGENTS)
    expected = {agent.handoff.trigger: agent.name for agent in AGENTS.values()
                if agent.handoff.trigger}
    assert handoff_map == expected
    assert handoff_map["handoff_fraud_agent"] == "fraud_agent"


def test_handoff_config_and_unified_agent_helpers() -> None:
    config = HandoffConfig(trigger="handoff_fraud_agent", is_entry_point=False)
    assert (config.trigger, config.is_entry_point) == ("handoff_fraud_agent", False)
    concierge, fraud = AGENTS["concierge"], AGENTS["fraud_agent"]
    assert isinstance(fraud, UnifiedAgent) and fraud.handoff_trigger == "handoff_fraud_agent"
    assert fraud.is_handoff_target("handoff_fraud_agent")
    assert not fraud.is_handoff_target("handoff_claims")
    assert concierge.can_handoff_to("fraud_agent") and not concierge.can_handoff_to("concierge")
    assert "handoff_fraud_agent" in concierge.get_handoff_tools(AGENTS)
    assert AGENTS["concierge"].handoff.is_entry_point


def test_session_agent_manager_is_built_as_the_runtime_builds_it() -> None:
    memo = Memo()
    session_mgr = SessionAgentManager(
        session_id="session_123",
        base_agents=AGENTS,
        memo_manager=memo,
    )
    assert isinstance(session_mgr, HandoffProvider)
    assert dict(session_mgr.handoff_map) == build_handoff_map(AGENTS)  # built at creation
    assert session_mgr.get_handoff_target("handoff_fraud_agent") == "fraud_agent"
    assert session_mgr.is_handoff_tool("handoff_claims")
    assert session_mgr.get_agent("fraud_agent") is AGENTS["fraud_agent"]
    assert session_mgr.list_agents() == list(AGENTS)


def test_session_updates_take_effect_immediately_and_reach_the_memo() -> None:
    memo = Memo()
    mgr = SessionAgentManager("s1", AGENTS, memo)
    mgr.update_handoff_map("handoff_fraud_agent", "compliance_desk")
    assert mgr.get_handoff_target("handoff_fraud_agent") == "compliance_desk"
    assert mgr.remove_handoff("handoff_claims") is True
    assert mgr.remove_handoff("handoff_claims") is False
    assert not mgr.is_handoff_tool("handoff_claims")
    saved = memo.context["agent_registry"]
    assert saved["handoff_map"]["handoff_fraud_agent"] == "compliance_desk"
    assert "handoff_claims" not in saved["handoff_map"]
    again = SessionAgentManager("s1", AGENTS, memo)  # the same session, rebuilt
    assert dict(again.handoff_map) == dict(mgr.handoff_map)
    asyncio.run(SessionAgentManager("s1", AGENTS, memo, redis_mgr=object()).persist())
    assert memo.persisted == 1


def test_unknown_target_agent_error_text() -> None:
    mgr = SessionAgentManager("s", AGENTS)
    with pytest.raises(ValueError, match="Unknown target agent: fraud"):
        mgr.update_handoff_map("handoff_fraud", "fraud")
    with pytest.raises(ValueError, match="Unknown agent: nobody"):
        mgr.get_agent("nobody")
    with pytest.raises(ValueError, match="Unknown agent: nobody"):
        mgr.set_active_agent("nobody")


def test_tool_registry_flags_handoff_tools() -> None:
    tool_registry.reset_registry()
    try:
        tool_registry.register_tool("verify_identity", {"name": "verify_identity"})
        assert tool_registry.register_handoff_tools(load_config(BANKING)) == len(
            build_handoff_map(AGENTS))
        assert is_handoff_tool("handoff_fraud_agent")
        assert not is_handoff_tool("verify_identity") and not is_handoff_tool("unknown")
        assert "verify_identity" not in list_tools(handoffs_only=True)
        assert set(list_tools(handoffs_only=True)) == set(build_handoff_map(AGENTS))
        assert list_tools()[0] == "verify_identity"
    finally:
        tool_registry.reset_registry()


def test_orchestrator_pattern_registry_then_provider() -> None:
    tools = ToolRegistry()
    tools.register_handoff_tools(load_config(BANKING))
    provider = SessionAgentManager("s", AGENTS)
    provider.remove_handoff("handoff_claims")
    found = {}
    for name in ("handoff_fraud_agent", "handoff_claims", "lookup_balance"):
        if tools.is_handoff_tool(name):  # "is this tool a handoff type?"
            found[name] = provider.get_handoff_target(name)  # "can this session route it?"
    assert found == {"handoff_fraud_agent": "fraud_agent", "handoff_claims": None}


def test_legacy_handoff_trigger_key_is_read_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    claims = folder / "agents" / "claims.yaml"
    text = claims.read_text(encoding="utf-8")
    legacy = text.replace("handoff:\n  trigger: handoff_claims\n",
                          "handoff_trigger: handoff_claims\nhandoff:\n")
    assert legacy != text
    claims.write_text(legacy, encoding="utf-8")
    snapshot = load_config(folder)
    assert snapshot.get_handoff_target("handoff_claims") == "claims"
    (warning,) = [w for w in snapshot.warnings if w.code == "deprecated-key"]
    assert warning.file.endswith("claims.yaml") and warning.line > 0
    assert "handoff: {trigger: handoff_claims}" in warning.message


def test_sanitize_handoff_context_example() -> None:
    raw = {"reason": "fraud inquiry", "success": True, "target_agent": "FraudAgent"}
    assert sanitize_handoff_context(raw) == {"reason": "fraud inquiry"}


def test_build_handoff_system_vars_example() -> None:
    ctx = build_handoff_system_vars(
        source_agent="Concierge",
        target_agent="FraudAgent",
        tool_result={"handoff_summary": "User suspects fraud"},
        tool_args={"reason": "fraud inquiry"},
        current_system_vars={"session_profile": {"name": "Ada"}, "client_id": "123"},
        user_last_utterance="I think my card was stolen",
    )
    assert ctx["previous_agent"] == "Concierge"
    assert ctx["handoff_reason"] == "User suspects fraud"
    assert ctx["client_id"] == "123"
    assert HandoffContext and HandoffResult  # the voice handoffs package's other exports


def test_duplicate_triggers_are_refused_not_last_wins() -> None:
    """Deliberate: the seed let the last agent win; a session refuses the set."""
    clash = {**AGENTS, "fraud_copy": AGENTS["fraud_agent"].model_copy(
        update={"name": "fraud_copy"})}
    with pytest.raises(UsageError, match="handoff_fraud_agent"):
        SessionAgentManager("s", clash)
