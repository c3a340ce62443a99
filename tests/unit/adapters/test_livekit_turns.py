"""LiveKit Agents adapter end to end, in LiveKit's own `AgentSession` with the scripted LLM: the
caller's words, spoken (a scripted STT feeding LiveKit's spoken-turn path) or typed
(`team.caller_says`, as a room's text input does through `team.text_input`), go through the
user-turn hook, so the engine's rules move the caller before the model answers;
records follow the call (accepted on the agent's `on_enter`, completed when it hands on or the
session closes, failed when it closes on an error) and the engine's OpenTelemetry spans show
each decision; a reload mid-call changes the next turn's tools; your own `EngineAgent`
subclasses plug in."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import BANKING, framework

framework("livekit.agents", "livekit")

from livekit.agents import AgentSession, function_tool  # noqa: E402
from livekit.agents.voice.agent_session import SessionConnectOptions  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from engine.adapters.lifecycle import SESSION_KEY  # noqa: E402
from engine.adapters.livekit import EngineAgent, VoiceTeam  # noqa: E402
from engine.adapters.scripted import Step, call, say  # noqa: E402
from engine.adapters.scripted.livekit import ScriptedLLM, ScriptedSTT  # noqa: E402
from engine.errors import UsageError  # noqa: E402
from engine.observability.otel import OTelObserver  # noqa: E402
from engine.records.models import FailureReason  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402
from tests.patience import HANG_S  # noqa: E402

STOLEN = "Someone stole my card last night."
Turns = Callable[[AgentSession[Any], VoiceTeam, AsyncEngine], Awaitable[Any]]


class Call:
    """What a scripted call left behind: the turns' result, records, spans and the model."""

    def __init__(self, result: Any, records: list[Any], spans: list[Any],
                 model: ScriptedLLM) -> None:
        self.result, self.records, self.spans, self.model = result, records, spans, model

    def statuses(self) -> list[str]:
        return [record.status.value for record in self.records]

    def moves(self, index: int) -> list[str]:
        return [move.to.value for move in self.records[index].history]


def converse(steps: list[Step], turns: Turns, config: Path = BANKING,
             session_options: dict[str, Any] | None = None, **team: Any) -> Call:
    """A call on `config` in a LiveKit session on the scripted LLM, traced in memory: runs
    `turns(session, team, engine)`, closes the session and waits for the records to settle."""
    model, spans = ScriptedLLM(steps), InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))

    async def main() -> Call:
        engine = await AsyncEngine.open(config)
        async with engine:
            engine.engine.observe(OTelObserver(tracer_provider=provider, metrics=False))
            voice_team = VoiceTeam(engine, **team)
            voice_call = voice_team.call(customer_id="C-1042")
            session = AgentSession(llm=model, **(session_options or {}))
            entry = voice_team.start(voice_call)
            await session.start(entry)
            await entry.entered()  # the caller speaks after the greeting
            result = await turns(session, voice_team, engine)
            await session.aclose()
            await voice_call.settled()
            records = await engine.query()  # the call's records, oldest first
            return Call(result, records, list(spans.get_finished_spans()), model)

    return asyncio.run(main())


async def typed(session: AgentSession[Any], team: VoiceTeam, words: str) -> None:
    """The caller types `words` (as a room's text input delivers them); waits for the answer."""
    await asyncio.wait_for(team.caller_says(session, words), HANG_S)


def raw_schemas(tools: list[Any]) -> dict[str, Any]:
    """The raw schemas of `tools` by name (`tool.info` in newer LiveKit versions, the attached
    tool info in older ones)."""
    infos = [getattr(tool, "info", None) or getattr(tool, "__livekit_raw_tool_info", None)
             for tool in tools]
    return {info.name: info.raw_schema for info in infos if hasattr(info, "raw_schema")}


def said(session: AgentSession[Any]) -> list[str]:
    return [item.text_content for item in session.history.items
            if getattr(item, "role", None) == "assistant"]


def test_a_rule_moves_the_caller_on_their_words_and_the_call_completes_the_record() -> None:
    steps = [say("Your balance is 1,200 pounds."), say("I've frozen the card ending 4421.")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        await typed(session, team, "Can you check my account balance?")  # stays: no record
        await typed(session, team, STOLEN)
        return session.current_agent, said(session)

    done = converse(steps, turns)
    agent, lines = done.result
    assert isinstance(agent, EngineAgent) and agent.name == "fraud_agent"
    assert lines[1:] == ["Your balance is 1,200 pounds.",
                         "You're through to the fraud team. I'm sorry you're dealing with this; "
                         "let's secure your account first.", "I've frozen the card ending 4421."]
    assert done.statuses() == ["completed"]  # the session closed: the call ended
    assert done.moves(0) == ["pending", "accepted", "in_progress", "completed"]
    record = done.records[0]
    assert record.result == {"ended": "call"} and record.request.task_description == STOLEN
    assert record.request.context[SESSION_KEY] == agent.call.session.session_id
    # the fraud agent's model answered the caller's words, which travelled with `carry`
    users = [i.text_content for i in done.model.script.seen[1]["chat_ctx"].items
             if getattr(i, "role", None) == "user"]
    assert users == [STOLEN]
    (handoff,) = [span for span in done.spans if span.name.startswith("handoff ")]
    assert (handoff.name, handoff.attributes["handoff.outcome"]) == (
        "handoff concierge", "routed")
    assert handoff.attributes["handoff.layer"] == "rule"
    assert handoff.attributes["handoff.rule"] == "lost-or-stolen-card"
    moves = [span for span in done.spans if span.name.startswith("handoff.move")]
    assert [span.attributes["handoff.to_state"] for span in moves] == [
        "accepted", "in_progress", "completed"]
    assert {span.context.trace_id for span in moves} == {handoff.context.trace_id}


def test_a_spoken_turn_goes_through_the_user_turn_hook_and_moves_the_caller() -> None:
    ears = ScriptedSTT()
    frozen = "I've frozen the card ending 4421."

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        replies: asyncio.Queue[str] = asyncio.Queue()
        session.on("conversation_item_added", lambda event: replies.put_nowait(
            event.item.text_content or "") if getattr(event.item, "role", None) == "assistant"
            else None)
        await ears.hear(STOLEN)  # LiveKit: transcript, end of turn, on_user_turn_completed
        while await asyncio.wait_for(replies.get(), HANG_S) != frozen:
            pass  # the fraud desk's greeting, then its answer
        heard = [item.text_content for item in session.history.items
                 if getattr(item, "role", None) == "user"]
        return session.current_agent, heard

    done = converse([say(frozen)], turns, session_options={
        "stt": ears, "turn_handling": {"turn_detection": "stt"}})
    agent, heard = done.result
    assert isinstance(agent, EngineAgent) and agent.name == "fraud_agent"
    assert heard == [STOLEN]  # the spoken words, as LiveKit transcribed them
    assert done.statuses() == ["completed"]
    assert done.moves(0) == ["pending", "accepted", "in_progress", "completed"]
    assert done.records[0].request.task_description == STOLEN
    # only the fraud desk's model answered: the hook moved the caller before the concierge's
    [seen] = done.model.script.seen
    assert [i.text_content for i in seen["chat_ctx"].items
            if getattr(i, "role", None) == "user"] == [STOLEN]
    (handoff,) = [span for span in done.spans if span.name.startswith("handoff ")]
    assert (handoff.name, handoff.attributes["handoff.layer"],
            handoff.attributes["handoff.rule"]) == (
        "handoff concierge", "rule", "lost-or-stolen-card")


def test_a_refused_tool_is_a_tool_error_and_handing_on_completes_the_holder() -> None:
    steps = [call("handoff_fraud_agent", reason="x"),  # the payload schema wants 3+ letters
             call("handoff_fraud_agent", reason="card used by someone else"),
             call("handoff_concierge", reason="fraud case opened")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        first = await session.run(user_input="There's a problem with my card.")
        first.expect.next_event().is_function_call(name="handoff_fraud_agent")
        refused = first.expect.next_event().is_function_call_output().event().item
        first.expect.next_event().is_function_call(name="handoff_fraud_agent")
        first.expect.next_event().is_function_call_output()
        first.expect.next_event().is_agent_handoff()
        back = await session.run(user_input="That's sorted, thanks.")
        back.expect.skip_next_event_if(type="function_call")
        back.expect.skip_next_event_if(type="function_call_output")
        back.expect.next_event().is_agent_handoff()
        return refused, session.current_agent.name

    done = converse(steps, turns)
    refused, holder = done.result
    assert refused.is_error and refused.output.startswith("Handoff refused (invalid_payload")
    assert holder == "concierge"
    assert done.statuses() == ["rejected", "completed", "completed"]
    assert done.records[1].result == {"handed_on_to": "concierge"}
    assert done.moves(1) == ["pending", "accepted", "in_progress", "completed"]
    assert done.records[2].result == {"ended": "call"}
    decided = [span for span in done.spans if "handoff.outcome" in span.attributes]
    assert [(span.name, span.attributes["handoff.outcome"]) for span in decided] == [
        ("execute_tool handoff_fraud_agent", "refused"),
        ("execute_tool handoff_fraud_agent", "routed"),
        ("execute_tool handoff_concierge", "routed")]
    assert all(str(span.attributes["gen_ai.tool.call.id"]).startswith("call_")
               for span in decided)  # the scripted model's call ids


def test_a_session_that_closes_on_an_error_fails_the_holders_record() -> None:
    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        await typed(session, team, STOLEN)  # the fraud agent's model fails: no steps left

    done = converse([], turns, session_options={
        "conn_options": SessionConnectOptions(max_unrecoverable_errors=0)})
    assert done.statuses() == ["failed"]
    assert done.records[0].failure is FailureReason.error
    assert done.moves(0) == ["pending", "accepted", "in_progress", "failed"]
    reason = done.records[0].response.reason
    assert reason.startswith("The run failed: APIConnectionError: "
                             "the model script ran out of steps at turn 1")


def test_a_reload_mid_call_changes_the_next_turns_tools_and_instructions(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    steps = [say("Your balance is 1,200 pounds."), say("And your savings hold 300.")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        await typed(session, team, "Can you check my account balance?")
        concierge = folder / "agents" / "concierge.yaml"
        text = concierge.read_text(encoding="utf-8")
        concierge.write_text(text.replace(", claims]", "]", 1).replace(
            "Front door of the bank's voice line.", "The bank's front desk."), encoding="utf-8")
        fraud = folder / "agents" / "fraud_agent.yaml"
        fraud.write_text(fraud.read_text(encoding="utf-8").replace(
            "required: [reason]", "required: [reason, card_last4]"), encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        await typed(session, team, "And my savings account?")
        return raw_schemas(session.current_agent.tools)

    done = converse(steps, turns, folder)
    before, after = (set(seen["tools"]) for seen in done.model.script.seen)
    told = [seen["chat_ctx"].items[0].text_content for seen in done.model.script.seen]
    assert told[0].startswith("You are concierge: Front door of the bank's voice line.")
    assert told[1].startswith("You are concierge: The bank's front desk.")
    assert before - after == {"handoff_claims"} and after < before
    schema = done.result["handoff_fraud_agent"]["parameters"]
    assert schema["required"] == ["reason", "card_last4"]
    assert done.records == []  # both turns stayed with the concierge: nothing recorded


def test_a_reload_naming_a_tool_the_toolbox_lacks_keeps_the_agents_tools(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    toolbox = {name: tool(name) for name in ("get_account_summary", "verify_caller")}

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        await typed(session, team, "Can you check my account balance?")
        concierge = folder / "agents" / "concierge.yaml"
        concierge.write_text(concierge.read_text(encoding="utf-8").replace(
            "tools: [get_account_summary,", "tools: [open_safe, get_account_summary,"),
            encoding="utf-8")
        assert (await engine.reload()).outcome == "applied"
        await typed(session, team, "And my savings account?")
        return said(session)[-1]

    done = converse([say("1,200 pounds."), say("300 pounds.")], turns, folder, tools=toolbox)
    assert done.result == "300 pounds."  # the turn went on, with the tools it had
    before, after = (seen["tools"] for seen in done.model.script.seen)
    assert after == before and "get_account_summary" in after
    assert "agent 'concierge' keeps its tools from the previous config" in caplog.text
    assert "'open_safe', which the toolbox lacks" in caplog.text


def tool(name: str) -> Any:
    """A toolbox tool that answers "ok" (a function of its own: LiveKit 1.2 tags the function)."""
    async def run(raw_arguments: dict[str, Any]) -> str:
        return "ok"

    return function_tool(run, raw_schema={"name": name, "description": name,
                                          "parameters": {"type": "object"}})


def test_your_own_agent_class_plugs_in_and_keeps_its_tools_across_turns() -> None:
    frozen: list[str] = []

    class FraudDesk(EngineAgent):
        @function_tool
        async def freeze_card(self, card_last4: str) -> str:
            """Freeze the caller's card.

            Args:
                card_last4: The last four digits of the card.
            """
            frozen.append(card_last4)
            return f"card {card_last4} frozen"

    steps = [call("freeze_card", card_last4="4421"), say("Frozen."), say("You're welcome.")]

    async def turns(session: AgentSession[Any], team: VoiceTeam, engine: AsyncEngine) -> Any:
        await typed(session, team, STOLEN)
        await typed(session, team, "Thanks a lot.")  # a turn refreshes the tools
        return session.current_agent

    done = converse(steps, turns, agents={"fraud_agent": FraudDesk})
    assert isinstance(done.result, FraudDesk) and frozen == ["4421"]
    offered = [seen["tools"] for seen in done.model.script.seen]
    assert all("freeze_card" in tools and "handoff_concierge" in tools for tools in offered)
    assert done.statuses() == ["completed"]


def test_registering_an_unknown_agent_or_a_class_without_the_wiring_is_a_usage_error() -> None:
    async def main() -> None:
        async with await AsyncEngine.open(BANKING) as engine:
            with pytest.raises(UsageError, match="'fraud_desk', not agents of the config"):
                VoiceTeam(engine, agents={"fraud_desk": EngineAgent})
            team = VoiceTeam(engine, agents={"concierge": lambda *args, **kw: object()})
            with pytest.raises(UsageError, match="built a object, not an EngineAgent"):
                team.start(team.call())

    asyncio.run(main())
