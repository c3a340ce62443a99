"""LiveKit Agents adapter, driven by LiveKit's own text-mode test harness (`AgentSession.run` and
`RunResult.expect`) with a scripted LLM: the function tool that switches the active agent is the
engine's decision (a refusal is a `ToolError`), the call's session history feeds the loop guard,
and each routed record ends where the call did."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import BANKING, ONE_HOP, framework

framework("livekit.agents", "livekit")

from livekit.agents import AgentSession, RunContext, function_tool  # noqa: E402

from engine.adapters.livekit import EngineAgent, VoiceTeam  # noqa: E402
from engine.adapters.scripted import Step, call, say  # noqa: E402
from engine.adapters.scripted.livekit import ScriptedLLM  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.loading.loader import load_config  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from engine.runtime.engine import Engine  # noqa: E402

STOLEN = "Someone used my card 4421 last night."
Turns = Callable[[AgentSession[Any], VoiceTeam, Any], Any]


def converse(steps: list[Step], turns: Turns, config: Path = BANKING, **team: Any) -> Any:
    """Run `turns(session, team, call)` in a LiveKit session on the scripted LLM; returns what
    it returned, the call, the handoff records and the model."""
    model = ScriptedLLM(steps)

    async def main() -> Any:
        async with AsyncEngine(Engine(config)) as engine:
            voice_team = VoiceTeam(engine, **team)
            voice_call = voice_team.call(customer_id="C-1042", customer_tier="gold")
            async with AgentSession(llm=model) as session:
                await session.start(voice_team.start(voice_call))
                result = await turns(session, voice_team, voice_call)
            await voice_call.settled()  # the moves the session's close started
            return result, voice_call, await engine.query()

    result, voice_call, records = asyncio.run(main())
    return result, voice_call, records, model


def test_a_refused_switch_keeps_the_agent_and_a_routed_one_greets_in_the_new_voice() -> None:
    voices: list[str] = []
    steps = [
        call("handoff_fraud_agent", reason="x"),                       # payload refused
        call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
        say("I've frozen the card."),
    ]

    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        first = await session.run(user_input=STOLEN)
        first.expect.next_event().is_function_call(name="handoff_fraud_agent")
        refused = first.expect.next_event().is_function_call_output().event().item
        first.expect.next_event().is_function_call(name="handoff_fraud_agent")
        first.expect.next_event().is_function_call_output()
        handoff = first.expect.next_event().is_agent_handoff(new_agent_type=EngineAgent)
        greeting = first.expect.next_event().is_message(role="assistant").event().item
        first.expect.no_more_events()
        second = await session.run(user_input="Please freeze it.")
        second.expect.next_event().is_message(role="assistant")
        moved = getattr(handoff.event(), "item", None)  # newer versions: ids of both agents
        return refused, greeting.text_content, session.current_agent, moved

    (refusal, greeting, agent, handoff), voice_call, records, model = converse(
        steps, turns, tts=lambda voice: voices.append(voice))
    assert refusal.is_error and "refused (invalid_payload" in refusal.output  # a ToolError
    assert greeting.startswith("You're through to the fraud team.")  # metadata.greeting
    assert isinstance(agent, EngineAgent) and agent.name == "fraud_agent"
    if handoff is not None:
        assert (handoff.old_agent_id, handoff.new_agent_id) == ("concierge", "fraud_agent")
    assert voices == ["en-US-AvaMultilingualNeural", "en-US-AndrewNeural"]  # metadata.voice
    assert voice_call.session.path == ("concierge", "fraud_agent")
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.completed]
    assert records[1].request.task_description == STOLEN
    assert records[1].result == {"ended": "call"}
    # fraud_agent shares `carry`: its instructions carry the brief, its history the last words
    fraud_ctx = model.script.seen[2]["chat_ctx"]
    instructions = fraud_ctx.items[0].text_content
    assert "You took over this conversation from concierge" in instructions
    assert '"customer_id": "C-1042"' in instructions and "customer_tier" not in instructions
    users = [i.text_content for i in fraud_ctx.items if getattr(i, "role", None) == "user"]
    assert users == [STOLEN, "Please freeze it."]


def test_going_back_uses_the_return_greeting() -> None:
    steps = [call("handoff_fraud_agent", reason="stolen card"),
             call("handoff_concierge", reason="done here")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        await session.run(user_input=STOLEN)
        back = await session.run(user_input="Take me back please.")
        back.expect.skip_next_event_if(type="function_call")
        back.expect.skip_next_event_if(type="function_call_output")
        back.expect.next_event().is_agent_handoff()
        return back.expect.next_event().is_message(role="assistant").event().item.text_content

    greeting, voice_call, records, _ = converse(steps, turns)
    assert greeting.startswith("Welcome back.")
    assert [r.request.to_agent for r in records] == ["fraud_agent", "concierge"]
    assert [r.result for r in records] == [{"handed_on_to": "concierge"}, {"ended": "call"}]
    assert voice_call.session.path == ("concierge", "fraud_agent", "concierge")
    assert voice_call.session.previous_agent is None  # the return stack unwound


def test_the_calls_history_feeds_the_loop_guard(write_files: Any) -> None:
    folder = write_files(ONE_HOP)
    steps = [call("to_b", reason="go"), call("to_a", reason="back"), say("Still b.")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        await session.run(user_input="hello")
        again = await session.run(user_input="back to a")
        again.expect.next_event().is_function_call(name="to_a")
        output = again.expect.next_event().is_function_call_output().event().item.output
        again.expect.next_event().is_message(role="assistant")
        return output, session.current_agent

    (output, agent), voice_call, records, _ = converse(steps, turns, folder)
    assert "refused (loop" in output and agent.name == "b"
    assert voice_call.session.history == (("a", "b"),)
    assert [r.status for r in records] == [HandoffStatus.completed, HandoffStatus.rejected]


def test_agents_get_their_metadata_tools_from_the_toolbox() -> None:
    frozen: list[str] = []

    def make(name: str) -> Any:
        async def run(raw_arguments: dict[str, Any], context: RunContext[Any]) -> str:
            frozen.append(name)
            return f"{name}: ok"

        return function_tool(run, raw_schema={"name": name, "description": name,
                                               "parameters": {"type": "object"}})

    snapshot = load_config(BANKING)
    names = {name for spec in snapshot.agents.values() for name in spec.metadata["tools"]
             if name not in snapshot.handoff_map}
    steps = [call("handoff_fraud_agent", reason="stolen card"), call("freeze_card"),
             say("Frozen.")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        await session.run(user_input=STOLEN)
        result = await session.run(user_input="Freeze it.")
        result.expect.next_event().is_function_call(name="freeze_card")
        return result.expect.next_event().is_function_call_output().event().item.output

    output, _, _, model = converse(steps, turns, tools={n: make(n) for n in names})
    assert output == "freeze_card: ok" and frozen == ["freeze_card"]
    offered = [seen["tools"] for seen in model.script.seen]
    assert "get_account_summary" in offered[0] and "freeze_card" not in offered[0]
    assert "freeze_card" in offered[1] and "get_account_summary" not in offered[1]


def offered(seen: dict[str, Any], name: str) -> dict[str, Any]:
    """Tool `name` as LiveKit formats it for an OpenAI model at the turn `seen` recorded."""
    return next(tool["function"] for tool in seen["openai"] if tool["function"]["name"] == name)


def test_strict_handoff_tools_are_closed_and_nulls_for_optional_fields_are_dropped() -> None:
    steps = [call("handoff_fraud_agent", reason="two charges", card_last4="4421",
                  suspected_amount=None)]

    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        result = await session.run(user_input=STOLEN)
        result.expect.next_event().is_function_call(name="handoff_fraud_agent")
        result.expect.next_event().is_function_call_output()
        result.expect.next_event().is_agent_handoff()

    _, voice_call, records, model = converse(steps, turns, strict=True)
    tool = offered(model.script.seen[0], "handoff_fraud_agent")
    assert tool["strict"] is True and tool["parameters"]["additionalProperties"] is False
    assert tool["parameters"]["required"] == ["reason", "suspected_amount", "card_last4"]
    assert tool["parameters"]["properties"]["suspected_amount"]["type"] == ["number", "null"]
    assert voice_call.session.active_agent == "fraud_agent"
    [record] = records  # routed: a null suspected_amount would break its `type: number`
    assert record.request.to_agent == "fraud_agent" and record.status is HandoffStatus.completed


def test_without_strict_handoff_tools_say_so_and_keep_the_schema_as_written() -> None:
    async def turns(session: AgentSession[Any], team: VoiceTeam, voice_call: Any) -> Any:
        await session.run(user_input="Hello")

    _, _, _, model = converse([say("Hello.")], turns)
    tool = offered(model.script.seen[0], "handoff_fraud_agent")
    assert tool["strict"] is False  # the Responses API would otherwise assume strict mode
    assert tool["parameters"]["required"] == ["reason"]
