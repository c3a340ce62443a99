"""The OpenAI Agents SDK adapter through the SDK's own Runner with a scripted model: the engine
routes the caller's words, a reload changes the schemas the model is shown, a failed run fails
its record, an SDK Session does not leak what a `carry` agent may not see, users' own agents
plug in, strict-mode tools. The whole call with its spans: test_openai_agents_traced.py."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, framework

agents = framework("agents", "openai-agents")
agents.set_tracing_disabled(True)  # offline: no trace export

from engine.adapters.openai_agents import AgentTeam  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.openai_agents import ScriptedModel  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.records.models import FailureReason  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402

Body = Callable[[AsyncEngine], Awaitable[Any]]


def run(tmp_path: Path, body: Body, config: Path = BANKING) -> Any:
    async def main() -> Any:
        engine = await AsyncEngine.open(config, store=tmp_path / "records.sqlite")
        async with engine:
            return await body(engine)

    return asyncio.run(main())


class Handoffs(agents.RunHooks[Any]):
    """Every SDK `on_handoff`, as (from, to)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def on_handoff(self, context: Any, from_agent: Any, to_agent: Any) -> None:
        self.seen.append((from_agent.name, to_agent.name))


def moves(record: Any) -> list[str]:
    return [move.to.value for move in record.history]


def test_a_rule_on_the_callers_words_starts_the_run_at_its_target(tmp_path: Path) -> None:
    model = ScriptedModel([say("Hello."), say("Fraud team here.")])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model, route_input=True)
        context = team.context()
        hello = await team.run("hi", context)  # no route: the holder keeps it, nothing recorded
        assert await engine.query() == []
        stolen = await team.run("My card was stolen", context)
        return hello, stolen, await engine.query()

    hello, stolen, records = run(tmp_path, body)
    assert hello.last_agent.name == "concierge" and stolen.last_agent.name == "fraud_agent"
    assert [r.status for r in records] == [HandoffStatus.in_progress]
    assert model.script.seen[1]["input"][-1] == {"role": "user", "content": "My card was stolen"}


def test_a_reload_changes_the_payload_schema_the_model_is_shown(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    model = ScriptedModel([say("Hello."), say("Hello again.")])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        context = team.context()
        await team.run("hi", context)
        fraud = folder / "agents" / "fraud_agent.yaml"
        text = fraud.read_text(encoding="utf-8")
        assert "minLength: 3" in text
        fraud.write_text(text.replace("minLength: 3", "minLength: 5", 1), encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        await team.run("hi again", context)

    run(tmp_path, body, folder)
    before, after = (seen["schemas"]["handoff_fraud_agent"] for seen in model.script.seen)
    assert before["properties"]["reason"]["minLength"] == 3
    assert after["properties"]["reason"]["minLength"] == 5


def test_a_run_that_errors_fails_the_holders_record_with_the_reason(tmp_path: Path) -> None:
    model = ScriptedModel([call("handoff_fraud_agent", reason="stolen card")])  # then runs out

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        with pytest.raises(Exception, match="ran out of steps"):
            await team.run("Someone used my card", team.context())
        return await engine.query()

    records = run(tmp_path, body)
    assert [r.status for r in records] == [HandoffStatus.failed]
    assert records[0].failure is FailureReason.error
    assert records[0].response is not None
    assert "ran out of steps" in records[0].response.reason


def test_an_sdk_session_does_not_show_a_carry_agent_what_came_before_it(tmp_path: Path) -> None:
    model = ScriptedModel([
        say("Welcome, gold member."),
        call("handoff_fraud_agent", reason="unrecognised charges", card_last4="4421"),
        say("Fraud team here."),
        say("The card is frozen."),
    ])

    async def body(engine: AsyncEngine) -> None:
        team = AgentTeam(engine, model=model)
        context = team.context()
        session = agents.SQLiteSession("call-1")
        await team.run("Hi, my secret word is PLATYPUS", context, session=session)
        await team.run("Two charges on my card are not mine", context, session=session)
        await team.run("Freeze it", context, session=session)

    run(tmp_path, body)
    fraud_later = str(model.script.seen[3]["input"])
    assert "Freeze it" in fraud_later and "Two charges" in fraud_later
    assert "PLATYPUS" not in fraud_later and "gold member" not in fraud_later


def test_your_own_sdk_agent_plugs_in_and_is_left_as_it_is(tmp_path: Path) -> None:
    @agents.function_tool
    def freeze_card(last4: str) -> str:
        """Freeze a card."""
        return f"frozen {last4}"

    mine = agents.Agent(name="fraud_agent", instructions="You are my fraud desk.",
                        tools=[freeze_card], model=ScriptedModel([say("My fraud desk.")]))
    front = ScriptedModel([call("handoff_fraud_agent", reason="stolen card", card_last4="4421")])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=front, agents={"fraud_agent": mine})
        return await team.run("Someone used my card", team.context()), team

    result, team = run(tmp_path, body)
    assert result.last_agent is team.agents["fraud_agent"] and result.last_agent is not mine
    assert result.final_output == "My fraud desk."
    assert [t.name for t in result.last_agent.tools] == ["freeze_card"]
    assert mine.handoffs == [] and mine.instructions == "You are my fraud desk."
    shown = mine.model.script.seen[0]  # type: ignore[union-attr]
    assert shown["instructions"].startswith("You are my fraud desk.\n\nYou took over")


def test_strict_handoff_tools_are_closed_and_nulls_for_optional_fields_are_dropped(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([
        call("handoff_fraud_agent", reason="two charges", card_last4="4421",
             suspected_amount=None),
        say("Fraud team here."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model, strict=True)
        result = await team.run("Someone used my card", team.context())
        return result, await engine.query()

    result, records = run(tmp_path, body)
    schema = model.script.seen[0]["schemas"]["handoff_fraud_agent"]
    assert model.script.seen[0]["strict"]["handoff_fraud_agent"] is True
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["reason", "suspected_amount", "card_last4"]
    assert schema["properties"]["suspected_amount"]["type"] == ["number", "null"]
    assert schema["properties"]["reason"]["type"] == "string"
    assert result.last_agent.name == "fraud_agent"
    assert records[0].status is HandoffStatus.in_progress
    assert "suspected_amount" not in records[0].request.context.get("tool_args", {})


def test_outside_team_run_a_refusal_ends_the_run_without_an_sdk_handoff(tmp_path: Path) -> None:
    from engine.adapters.openai_agents import HandoffRefused

    model = ScriptedModel([call("handoff_fraud_agent", reason="x")])  # breaks the schema
    hooks = Handoffs()

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        context = team.context()
        with pytest.raises(HandoffRefused, match="invalid_payload") as refused:
            await agents.Runner.run(team.agent_for(context), "Someone used my card",
                                    context=context, hooks=hooks)
        return refused.value, context, await engine.query()

    error, context, records = run(tmp_path, body)
    assert error.tool == "handoff_fraud_agent" and error.reason.startswith("invalid_payload")
    assert hooks.seen == [] and context.session.active_agent == "concierge"
    assert [r.status for r in records] == [HandoffStatus.rejected]
