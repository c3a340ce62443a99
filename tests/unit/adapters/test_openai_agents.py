"""OpenAI Agents SDK adapter, run by the real SDK's Runner with a scripted model: every SDK
handoff is the engine's decision (routed and recorded, or refused and the run stays put)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, ONE_HOP, framework

agents = framework("agents", "openai-agents")
agents.set_tracing_disabled(True)  # offline: no trace export

from engine.adapters.openai_agents import AgentTeam, HandoffRunContext  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.openai_agents import ScriptedModel  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402
from engine.runtime.tools import handoff_tools  # noqa: E402

STOLEN = "Someone used my card 4421 last night."


def run(body: Callable[[AsyncEngine], Any], config: Path = BANKING) -> Any:
    async def main() -> Any:
        async with AsyncEngine(Engine(config)) as engine:
            return await body(engine)

    return asyncio.run(main())


def test_agents_and_handoffs_come_from_the_config_set() -> None:
    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=ScriptedModel([]))
        assert set(team.agents) == set(engine.snapshot.agents)
        concierge = team.agents["concierge"]
        expected = handoff_tools(engine.snapshot, "concierge")
        assert [h.tool_name for h in concierge.handoffs] == [t.name for t in expected]
        fraud = next(h for h in concierge.handoffs if h.tool_name == "handoff_fraud_agent")
        assert fraud.agent_name == "fraud_agent"
        assert fraud.input_json_schema["properties"]["card_last4"]["pattern"] == "^[0-9]{4}$"
        assert fraud.strict_json_schema is False
        assert AgentTeam(engine).agents["concierge"].model.choice == "gpt-4o"  # metadata.model

    run(body)


def test_a_refused_handoff_keeps_the_run_and_the_retry_is_routed_and_recorded() -> None:
    model = ScriptedModel([
        call("handoff_fraud_agent", reason="x"),                 # breaks the payload schema
        call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
        say("You're through to the fraud team."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        context = team.context(customer_id="C-1042", card_last4="4421", customer_tier="gold")
        result = await team.run(STOLEN, context)
        return result, context, await engine.query()

    result, context, records = run(body)
    assert result.last_agent.name == "fraud_agent" and result.final_output.startswith("You're")
    assert context.session.path == ("concierge", "fraud_agent")
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.in_progress]
    assert records[0].response.reason.startswith("invalid_payload")
    assert records[1].request.task_description == STOLEN
    # the concierge's model saw the refusal as the handoff's tool output, then retried
    retry_input = model.script.seen[1]["input"]
    outputs = [item["output"] for item in retry_input if item.get("type") == "function_call_output"]
    assert "refused" in outputs[0] and "invalid_payload" in outputs[0]
    # fraud_agent shares `carry`: only its carry keys travel, in its instructions' brief
    fraud_turn = model.script.seen[2]
    assert "You took over this conversation from concierge" in fraud_turn["instructions"]
    assert '"card_last4": "4421"' in fraud_turn["instructions"]
    assert "customer_tier" not in fraud_turn["instructions"]
    assert fraud_turn["input"] == [{"role": "user", "content": STOLEN}]


def test_a_target_sharing_all_sees_the_whole_transcript() -> None:
    model = ScriptedModel([
        call("handoff_compliance_desk", reason="formal complaint"),
        say("Compliance desk here."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        return await team.run("I want to file a formal complaint", team.context())

    result = run(body)
    assert result.last_agent.name == "compliance_desk"
    seen = model.script.seen[1]["input"]
    assert any(item.get("type") == "function_call" for item in seen)  # the handoff call too


def test_the_loop_guard_refuses_inside_the_sdk_run(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    model = ScriptedModel([call("to_b", reason="go"), call("to_a", reason="back"), say("Still b.")])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        assert team.agents["a"].instructions is not None
        context = team.context()
        return await team.run("hello", context), context, await engine.query()

    result, context, records = run(body, folder)
    assert result.last_agent.name == "b" and context.session.active_agent == "b"
    assert [r.status for r in records] == [HandoffStatus.in_progress, HandoffStatus.rejected]
    assert records[1].response.reason.startswith("loop")
    assert model.script.seen[0]["instructions"] == "You are the front desk."


def test_a_handoff_removed_in_the_session_is_not_offered() -> None:
    model = ScriptedModel([say("How can I help?")])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        context = team.context()
        context.session.remove_handoff("handoff_claims")
        await team.run("hi", context)

    run(body)
    offered = model.script.seen[0]["handoffs"]
    assert "handoff_claims" not in offered and "handoff_fraud_agent" in offered


def test_runs_without_the_team_context_are_a_usage_error() -> None:
    model = ScriptedModel([call("handoff_claims", reason="a claim")])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        await agents.Runner.run(team.agents["concierge"], "hi", context={"not": "ours"})

    with pytest.raises(UsageError, match=r"team\.context"):
        run(body)


def test_run_context_defaults() -> None:
    async def body(engine: AsyncEngine) -> HandoffRunContext:
        return AgentTeam(engine, model=ScriptedModel([])).context(tier="gold")

    context = run(body)
    assert context.values == {"tier": "gold"} and context.session.active_agent == "concierge"


@pytest.mark.parametrize(("arguments", "message"), [
    ("", None), ('{"reason": "ok",}', None),   # empty, and repaired by parse_json
    ("[1, 2]", "must be a JSON object"), ("no json here", "invalid JSON arguments"),
])
def test_handoff_arguments_are_parsed_or_refused_as_model_errors(
    arguments: str, message: str | None
) -> None:
    from engine.adapters.openai_agents import _payload

    if message is None:
        assert isinstance(_payload("handoff_claims", arguments), dict)
    else:
        with pytest.raises(agents.exceptions.ModelBehaviorError, match=message):
            _payload("handoff_claims", arguments)


def test_a_handoff_to_an_agent_the_team_was_not_built_with_is_a_clear_error() -> None:
    model = ScriptedModel([call("handoff_claims", reason="a claim")])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        del team.agents["claims"]  # as if a reload had enabled claims after the team was built
        await team.run("I want to file a claim", team.context())

    with pytest.raises(UsageError, match="rebuild them after a reload"):
        run(body)


def banking_tool_names(engine: AsyncEngine) -> set[str]:
    triggers = engine.snapshot.handoff_map
    return {name for spec in engine.snapshot.agents.values()
            for name in spec.metadata.get("tools", ()) if name not in triggers}


def test_each_agent_gets_the_tools_its_metadata_names_from_the_toolbox() -> None:
    async def tool(ctx: Any, arguments: str) -> str:
        return "done"

    async def body(engine: AsyncEngine) -> Any:
        toolbox = {name: agents.FunctionTool(name=name, description=name, on_invoke_tool=tool,
                                             params_json_schema={"type": "object"})
                   for name in banking_tool_names(engine)}
        team = AgentTeam(engine, model=ScriptedModel([]), tools=toolbox)
        with pytest.raises(UsageError, match=r"'freeze_card'.*which the toolbox lacks"):
            AgentTeam(engine, tools={k: v for k, v in toolbox.items() if k != "freeze_card"})
        return {name: [t.name for t in agent.tools] for name, agent in team.agents.items()}

    tools = run(body)
    assert tools["fraud_agent"] == ["freeze_card", "list_recent_transactions", "open_fraud_case"]
    assert tools["concierge"] == ["get_account_summary", "verify_caller"]


def test_a_reload_that_takes_a_peer_away_hides_its_handoff(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    model = ScriptedModel([say("Hello."), say("Hello again.")])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        context = team.context()
        await team.run("hi", context)
        concierge = folder / "agents" / "concierge.yaml"
        text = concierge.read_text(encoding="utf-8")
        concierge.write_text(text.replace(", claims]", "]", 1), encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        await team.run("hi again", context)

    run(body, folder)
    before, after = (seen["handoffs"] for seen in model.script.seen)
    assert "handoff_claims" in before and "handoff_claims" not in after
    assert set(before) - set(after) == {"handoff_claims"}
