"""One test per row of the migration table (docs/migration.md): each claim of the row, traps
included.

`test_every_row_has_a_test` keeps the table and this file in step.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

import engine
from engine import (
    HandoffManager,
    HandoffRequest,
    HandoffStatus,
    IllegalTransition,
    RecordImportError,
    RecordNotFound,
    SessionAgentManager,
    UsageError,
    load_config,
)
from tests.patience import HANG_S

ROOT = Path(__file__).resolve().parents[3]
BANKING = ROOT / "configs" / "banking"


def _request(sender: str = "coordinator") -> HandoffRequest:
    return HandoffRequest(from_agent=sender, to_agent="analyst", task_description="Analyze")


def test_every_row_has_a_test() -> None:
    page = (ROOT / "docs" / "migration.md").read_text(encoding="utf-8")
    section = page.split("# Migrating from the systems this replaces")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (M\d+) \|", section, flags=re.MULTILINE)
    assert rows == [f"M{n}" for n in range(1, len(rows) + 1)] and len(rows) >= 10
    tests = {name.split("_")[1].upper() for name in globals() if name.startswith("test_m")}
    assert tests == set(rows)


def test_m1_aumai_handoff_records_are_immutable_and_errors_typed() -> None:
    manager = HandoffManager()
    kept = manager.create_handoff(_request())
    accepted = manager.accept(kept.record_id)
    assert kept.status is HandoffStatus.pending  # the trap: the kept reference does not change
    assert accepted.status is HandoffStatus.accepted
    assert manager.get(kept.record_id).status is HandoffStatus.accepted
    with pytest.raises(ValueError, match=r"^Cannot accept handoff in state 'accepted'\.") as bad:
        manager.accept(kept.record_id)
    assert isinstance(bad.value, IllegalTransition)
    with pytest.raises(KeyError) as missing:
        manager.get("nope")
    assert isinstance(missing.value, RecordNotFound)
    assert str(missing.value) == "No handoff record found with id 'nope'."
    valid = manager.export()[0]
    with pytest.raises(ValidationError) as caught:
        HandoffManager().import_records([valid, {"record_id": "x"}])
    assert isinstance(caught.value, RecordImportError) and caught.value.index == 1
    assert caught.value.errors()[0]["loc"][0] == 1
    fresh = HandoffManager()
    with pytest.raises(RecordImportError):
        fresh.import_records([valid, {"record_id": "x"}])
    assert fresh.list_records() == []  # all or nothing
    assert {"history", "config_version", "version", "failure"} <= set(type(accepted).model_fields)


def test_m2_seed_router_never_returns_the_sender() -> None:
    from engine.routing import AgentCapabilityRegistry, HandoffRouter, _extract_keywords

    registry = AgentCapabilityRegistry()
    registry.register("analyst", ["analyze", "report"])
    registry.register("writer", ["write"])
    request = HandoffRequest(from_agent="analyst", to_agent="",
                             task_description="Please analyze and report")
    assert _extract_keywords(request.task_description) == ["please", "analyze", "report"]
    assert HandoffRouter(registry).route(request) == "writer"  # best match is the sender
    assert engine.HandoffRouter is HandoffRouter


class Ping(BaseModel):
    text: str


def test_m3_pump_has_no_xml_peers_empty_means_no_one_and_answers_reach_the_caller() -> None:
    from engine.pump import (
        HandlerMetadata,
        HandlerResponse,
        ListenerRegistry,
        Pump,
        SystemError,
        get_todo_registry,
    )
    from engine.pump.contract import ROUTING_MESSAGE

    got: dict[str, list[Any]] = {"lonely": [], "tool": [], "xml": []}

    async def lonely(payload: Any, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, SystemError):
            got["lonely"].append(payload.message)
            return None
        return HandlerResponse(Ping(text="hi"), to="tool")  # peers: [] means no one

    async def tool(payload: Any, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, SystemError):
            got["tool"].append(payload.message)
            return None
        assert get_todo_registry() is not None  # inside a handler: the pump's registry
        return HandlerResponse(Ping(text="back"), to=metadata.from_id)  # no peer needed

    async def xml(payload: Any, metadata: HandlerMetadata) -> Any:
        if isinstance(payload, SystemError):
            got["xml"].append(payload.code)
            return None
        return b"<ping/>"

    async def main() -> tuple[Any, Any]:
        registry = ListenerRegistry()
        registry.register("lonely", lonely, payload=[Ping, SystemError], peers=[])
        registry.register("tool", tool, payload=[Ping, SystemError])
        registry.register("dotted.xml", xml, payload=[Ping, SystemError])
        async with Pump(registry) as pump:
            await pump.inject("lonely", Ping(text="go"), sender="console")
            await pump.join()
            return (await pump.request("tool", Ping(text="go")),
                    await pump.request("dotted.xml", Ping(text="go")))

    answer, failure = asyncio.run(asyncio.wait_for(main(), HANG_S))
    assert got == {"lonely": [ROUTING_MESSAGE], "tool": [], "xml": []}
    assert answer == Ping(text="back")
    assert isinstance(failure, SystemError) and failure.code == "contract"  # once, to the caller
    assert get_todo_registry().get_pending_for("any-thread", "tool") == []  # outside a handler


def test_m4_voice_agents_duplicate_triggers_fail_legacy_key_warns(tmp_path: Path) -> None:
    from engine.errors import ConfigError

    snapshot = load_config(BANKING)
    agents = snapshot.agents
    assert engine.build_handoff_map(agents) == dict(snapshot.handoff_map)
    assert isinstance(snapshot, engine.HandoffProvider)
    assert agents["fraud_agent"].metadata["voice"]["name"]  # runtime fields under metadata
    assert engine.UnifiedAgent is engine.AgentSpec and engine.HandoffConfig is engine.HandoffSpec
    assert "handoff_fraud_agent" in agents["concierge"].get_handoff_tools(agents)
    folder = tmp_path / "set"
    (folder / "agents").mkdir(parents=True)
    (folder / "engine.yaml").write_text(
        "version: 1\nname: s\nentry: a\ninclude:\n  agents: ['agents/*.yaml']\n",
        encoding="utf-8")
    (folder / "agents" / "a.yaml").write_text(
        "name: a\nhandoff_trigger: to_a\npeers: [b]\n", encoding="utf-8")
    (folder / "agents" / "b.yaml").write_text(
        "name: b\nhandoff: {trigger: to_b}\npeers: [a]\n", encoding="utf-8")
    loaded = load_config(folder)
    assert loaded.get_handoff_target("to_a") == "a"
    assert [w.code for w in loaded.warnings] == ["deprecated-key"]
    (folder / "agents" / "b.yaml").write_text(
        "name: b\nhandoff: {trigger: to_a}\npeers: [a]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(folder)
    assert "duplicate-trigger" in {issue.code for issue in caught.value.issues}


def test_m5_session_agent_manager_starts_on_the_entry_and_speaks_the_seed_errors() -> None:
    with engine.Engine(BANKING) as live:
        mgr = SessionAgentManager(session_id="s1", base_agents=live, memo_manager=None)
        assert mgr.active_agent == live.snapshot.config.engine.entry  # the seed started at None
        with pytest.raises(ValueError, match="Unknown target agent: ghost"):
            mgr.update_handoff_map("handoff_ghost", "ghost")
        with pytest.raises(UsageError, match="Unknown agent: ghost"):
            mgr.get_agent("ghost")
        assert not hasattr(mgr, "update_agent_prompt")  # per-session prompt overrides: dropped
        session = live.session()
        assert session.get_handoff_target("handoff_claims") == "claims"


def test_m6_tool_registry_flags_handoffs_and_never_runs_tools() -> None:
    from engine.runtime import tool_registry

    registry = tool_registry.ToolRegistry()
    registry.register_tool("lookup", {"name": "lookup"}, executor=lambda args: args)
    registry.register_handoff_tools(load_config(BANKING))
    assert registry.is_handoff_tool("handoff_claims") and not registry.is_handoff_tool("lookup")
    assert "lookup" not in registry.list_tools(handoffs_only=True)
    assert not hasattr(tool_registry, "execute_tool")
    assert tool_registry.is_handoff_tool("lookup") is False  # the module-level default registry


def test_m7_context_helpers_and_the_target_policy() -> None:
    from engine import ContextPolicy, build_handoff_system_vars, sanitize_handoff_context

    assert sanitize_handoff_context({"reason": "r", "success": True}) == {"reason": "r"}
    carried = build_handoff_system_vars(
        source_agent="concierge", target_agent="fraud_agent",
        tool_result={"handoff_context": {"customer_id": "c1", "pin": "0000"}},
        tool_args={}, current_system_vars={},
        policy=ContextPolicy(share="carry", carry=("customer_id",)),
    )
    assert carried["handoff_context"] == {"customer_id": "c1"}


def test_m8_specs_loader_hands_out_read_only_views_and_checks_formats_and_rules() -> None:
    from engine.specs import get_schema_path, load_schema, validate_quietly

    first = load_schema("tool_canonical_ir_v1")
    assert "action" in first["properties"]["capabilities"]["items"]["properties"]  # seed layout
    with pytest.raises(TypeError, match="read-only"):
        first["properties"].clear()
    assert load_schema("tool_canonical_ir_v1") is first and first["properties"]
    assert load_schema("tool_canonical_ir_v1", layout="refs")["properties"]["security"] == {
        "$ref": "#/$defs/security"}
    tool = {"name": "t", "version": "1.0.0", "inputs": {}, "outputs": {},
            "capabilities": [{"action": "a", "domain": "d"}],
            "metadata": {"created_at": "2026-03-01T09:30:00"}}
    assert validate_quietly(tool, "tool_canonical_ir_v1") == (True, "")  # naive time is fine
    tool["metadata"] = {"created_at": "soon"}
    assert validate_quietly(tool, "tool_canonical_ir_v1")[0] is False  # formats are checked
    tool["metadata"] = {"deprecation_message": "use t2"}  # a model-only rule in the seed
    assert validate_quietly(tool, "tool_canonical_ir_v1")[0] is False
    assert get_schema_path("agent_capability_v1").suffix == ".json"


def test_m9_spec_models_are_strict_not_reassignable_and_dump_valid_documents() -> None:
    from engine.specs import validate
    from engine.specs.models import AgentError, ToolCanonicalIR, ToolCapability

    error = AgentError(code=201, category="tool_execution", message="m", severity="error")
    with pytest.raises(ValidationError):
        error.code = 202  # type: ignore[misc]
    with pytest.raises(ValidationError):
        AgentError(code="201", category="tool_execution", message="m", severity="error")
    assert AgentError(code=201, category="tool_execution", message=" m ",
                      severity="error").message == " m "  # not stripped
    tool = ToolCanonicalIR(name="t", version="1.0.0", inputs={}, outputs={},
                           capabilities=[ToolCapability(action="a", domain="d")])
    dumped = tool.model_dump(mode="json")
    assert "description" not in dumped and validate(dumped, "tool_canonical_ir_v1")


def test_m10_guard_is_the_same_sync_and_async() -> None:
    from engine.errors import HandoffViolation, ParseError
    from engine.guard import guard, parse_json

    class Out(BaseModel):
        a: int

    def sync_node(state: Any) -> Any:
        return parse_json("no json")

    async def async_node(state: Any) -> Any:
        return parse_json("no json")

    for run in (lambda: guard(output=Out)(sync_node)({}),
                lambda: asyncio.run(guard(output=Out)(async_node)({}))):
        with pytest.raises(HandoffViolation) as caught:
            run()
        assert caught.value.field_path == "<parse>"

    def decoding(state: Any) -> Any:
        return json.loads("{")

    async def adecoding(state: Any) -> Any:
        return json.loads("{")

    with pytest.raises(json.JSONDecodeError):
        guard(output=Out)(decoding)({})
    with pytest.raises(json.JSONDecodeError):
        asyncio.run(guard(output=Out)(adecoding)({}))
    with pytest.raises(UsageError):
        guard(output=Out, max_attempts=0)(decoding)
    assert engine.ParseError is ParseError
