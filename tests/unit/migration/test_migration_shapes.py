"""One test per row of the "Seed shapes taken as they are" table (docs/migration.md): each
claim of the row, traps included. `test_every_row_has_a_test` keeps the two in step."""

from __future__ import annotations

import asyncio
import copy
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from engine import ModelConfig, UsageError, VoiceConfig, check_paths, load_config
from tests.conftest import FIXTURES
from tests.patience import HANG_S

ROOT = Path(__file__).resolve().parents[3]
VOICE_SET = FIXTURES / "configs" / "valid" / "art-voice-agents"


def test_every_row_has_a_test() -> None:
    page = (ROOT / "docs" / "migration.md").read_text(encoding="utf-8")
    section = page.split("## Seed shapes taken as they are")[1].split("\n## ")[0]
    rows = re.findall(r"^\| (S\d+) \|", section, flags=re.MULTILINE)
    assert rows == [f"S{n}" for n in range(1, len(rows) + 1)] and rows
    tests = {name.split("_")[1].upper() for name in globals() if re.match(r"test_s\d", name)}
    assert tests == set(rows)


def test_s1_voice_agent_files_load_typed_and_prompt_files_are_left_to_the_runtime(
    tmp_path: Path,
) -> None:
    agents = load_config(VOICE_SET).agents
    concierge, fraud = agents["Concierge"], agents["FraudAgent"]
    assert (concierge.prompt_path, concierge.prompt_template) == ("prompt.jinja", "")  # the trap
    assert isinstance(fraud.model, ModelConfig) and isinstance(fraud.voice, VoiceConfig)
    assert "handoff_concierge" in fraud.tool_names and fraud.peers == ("Concierge",)
    assert (concierge.handoff.strategy, concierge.session["tool_choice"]) == ("auto", "auto")
    folder = tmp_path / "set"
    shutil.copytree(VOICE_SET, folder)
    fraud_file = folder / "agents" / "fraud_agent" / "agent.yaml"
    fraud_file.write_text(fraud_file.read_text(encoding="utf-8").replace(
        "peers: [Concierge]\n", "").replace("temperature: 0.6", "temperature: warm"),
        encoding="utf-8")
    codes = {issue.code for issue in check_paths([folder]).issues}
    assert codes == {"type"}
    fraud_file.write_text(fraud_file.read_text(encoding="utf-8").replace(
        "temperature: warm", "temperature: 0.6"), encoding="utf-8")
    snapshot = load_config(folder)  # no peers: its `tools` handoff grants nothing
    assert snapshot.agents["FraudAgent"].get_handoff_tools(snapshot.agents) == []
    assert {warning.code for warning in snapshot.warnings} == {"dead-end-agent"}


def test_s2_specs_schemas_are_read_only_in_the_seed_layout() -> None:
    from engine.specs import load_schema

    schema = load_schema("tool_canonical_ir_v1")
    assert "domain" in schema["properties"]["capabilities"]["items"]["properties"]
    assert "$defs" in schema and load_schema("tool_canonical_ir_v1") is schema
    with pytest.raises(TypeError, match="read-only"):
        schema["properties"]["name"]["maxLength"] = 1
    mine = copy.deepcopy(schema)
    mine["properties"]["name"]["maxLength"] = 1
    assert schema["properties"]["name"] != mine["properties"]["name"]
    assert load_schema("tool_canonical_ir_v1", layout="refs")["properties"]["metadata"] == {
        "$ref": "#/$defs/metadata"}


class Add(BaseModel):
    a: int
    b: int


class Sum(BaseModel):
    value: int


def _pump_run(register: Any, calls: Any) -> Any:
    from engine.pump import ListenerRegistry, Pump

    async def main() -> Any:
        registry = ListenerRegistry()
        register(registry)
        async with Pump(registry) as pump:
            return await calls(pump)

    return asyncio.run(asyncio.wait_for(main(), HANG_S))


def test_s3_a_pure_tool_answers_whoever_called_by_from_id() -> None:
    from engine.pump import HandlerMetadata, HandlerResponse

    chains: list[str] = []

    async def add(payload: Add, metadata: HandlerMetadata) -> HandlerResponse:
        return HandlerResponse(Sum(value=payload.a + payload.b), to=metadata.from_id)

    async def agent(payload: Any, metadata: HandlerMetadata) -> HandlerResponse:
        chains.append(metadata.thread_id)
        if isinstance(payload, Sum):
            return HandlerResponse.respond(payload)
        return HandlerResponse(Add(a=payload.a, b=payload.b), to="add")

    def register(registry: Any) -> None:
        registry.register("add", add, payload=Add, peers=[])
        registry.register("agent", agent, payload=[Add, Sum], peers=["add"])

    async def calls(pump: Any) -> Any:
        return await pump.request("agent", Add(a=3, b=4))

    assert _pump_run(register, calls) == Sum(value=7)
    assert chains[0] == chains[1]  # the answer came back on the agent's own thread (pruned)


def test_s4_a_legacy_bytes_handler_fails_once_to_its_caller() -> None:
    from engine.pump import HandlerMetadata, SystemError

    calls_made: list[str] = []

    async def old(payload: Any, metadata: HandlerMetadata) -> bytes:
        calls_made.append(type(payload).__name__)
        return b"<result/>"

    def register(registry: Any) -> None:
        registry.register("old", old, payload=[Add, SystemError])

    async def calls(pump: Any) -> Any:
        return await pump.request("old", Add(a=1, b=2)), pump.stats().errors

    reply, errors = _pump_run(register, calls)
    assert calls_made == ["Add"] and errors == {"contract": 1}
    assert isinstance(reply, SystemError) and not reply.retry_allowed
    assert "returned bytes" in reply.message


def test_s5_get_todo_registry_reaches_the_pumps_from_outside_handlers() -> None:
    from engine.pump import HandlerMetadata, HandlerResponse, ProcessTodos, get_todo_registry

    at_start_up = get_todo_registry()
    assert isinstance(at_start_up, ProcessTodos)
    inside: list[Any] = []

    async def tool(payload: Add, metadata: HandlerMetadata) -> HandlerResponse:
        inside.append(get_todo_registry())
        return HandlerResponse.respond(Sum(value=payload.a + payload.b))

    def register(registry: Any) -> None:
        registry.register("tool", tool, payload=Add)

    async def calls(pump: Any) -> Any:
        await pump.request("tool", Add(a=1, b=2))
        return pump.todos

    own = _pump_run(register, calls)
    assert inside == [own] and own is not at_start_up
    assert get_todo_registry() is at_start_up
    with pytest.raises(UsageError, match="no running pump has thread"):
        at_start_up.register("t-1", "tool", "Sum")
