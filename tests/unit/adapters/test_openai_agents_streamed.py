"""The OpenAI Agents SDK adapter streamed, through the SDK's own `Runner.run_streamed` with a
scripted model: the engine decides each handoff call before the SDK sees it, as in a plain run
(a refused call's events never reach the stream), and the records end where the stream did
(run to its end, errored, stopped early, cancelled). The same call, run and streamed, with its
records and spans: test_openai_agents_traced.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest

from .conftest import framework

agents = framework("agents", "openai-agents")
agents.set_tracing_disabled(True)  # offline: no trace export

from engine.adapters.openai_agents import AgentTeam, HandoffRunContext  # noqa: E402
from engine.adapters.scripted import call, say  # noqa: E402
from engine.adapters.scripted.openai_agents import ScriptedModel  # noqa: E402
from engine.lifecycle import HandoffStatus  # noqa: E402
from engine.observer.facts import HandoffFacts  # noqa: E402
from engine.observer.seam import Observer  # noqa: E402
from engine.records.models import FailureReason  # noqa: E402
from engine.runtime.async_engine import AsyncEngine  # noqa: E402

from .test_openai_agents_flow import Handoffs, moves, run  # noqa: E402

Turn = Callable[..., Awaitable[Any]]


async def streamed(team: AgentTeam, text: str, context: HandoffRunContext,
                   **options: Any) -> Any:
    """One caller turn through `AgentTeam.run_streamed`, read to its end: its SDK result."""
    turn = await team.run_streamed(text, context, **options)
    async for _ in turn.stream_events():
        pass
    return turn.result


async def plain(team: AgentTeam, text: str, context: HandoffRunContext, **options: Any) -> Any:
    return await team.run(text, context, **options)


TURNS: dict[str, Turn] = {"run": plain, "streamed": streamed}
"""A caller turn, by how it runs."""

REFUSED_THEN_ROUTED = [
    call("handoff_fraud_agent", reason="x"),  # breaks the payload schema: refused
    call("handoff_fraud_agent", reason="card used by someone else", card_last4="4421"),
    say("You're through to the fraud team."),
]


class Facts(Observer):
    """What the engine told its observers about each handoff."""

    def __init__(self) -> None:
        self.seen: list[HandoffFacts] = []

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        self.seen.append(facts)


def raw_items(events: list[Any]) -> list[Any]:
    """The output items the stream's raw Responses events opened."""
    return [event.data.item for event in events if event.type == "raw_response_event"
            and event.data.type == "response.output_item.added"]


def test_a_refused_call_never_reaches_the_stream_and_the_retry_hands_off(tmp_path: Path) -> None:
    model = ScriptedModel(REFUSED_THEN_ROUTED)
    hooks = Handoffs()

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        turn = await team.run_streamed("Someone used my card", team.context(), hooks=hooks)
        events = [event async for event in turn.stream_events()]
        return turn.result, events, await engine.query()

    result, events, records = run(tmp_path, body)
    assert result.last_agent.name == "fraud_agent"
    assert result.final_output == "You're through to the fraud team."
    assert hooks.seen == [("concierge", "fraud_agent")]  # the refusal was no SDK handoff
    calls = [item for item in raw_items(events) if item.type == "function_call"]
    assert len(calls) == 1  # the routed call's events; the refused call's were held back
    routed_call = model.script.seen[1]["input"][-2]
    assert routed_call["type"] == "function_call" and routed_call["arguments"] == '{"reason": "x"}'
    assert model.script.seen[1]["input"][-1]["output"].startswith("Handoff refused (")
    assert [(r.status, moves(r)) for r in records] == [
        (HandoffStatus.rejected, ["pending", "rejected"]),
        (HandoffStatus.in_progress, ["pending", "accepted", "in_progress"]),
    ]
    assert all(seen["streamed"] for seen in model.script.seen)
    deltas = [event.data.delta for event in events if event.type == "raw_response_event"
              and event.data.type == "response.output_text.delta"]
    assert deltas == ["You're through to the fraud team."]


def test_a_streamed_run_that_errors_fails_the_holders_record(tmp_path: Path) -> None:
    model = ScriptedModel([call("handoff_fraud_agent", reason="stolen card")])  # then runs out

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        with pytest.raises(Exception, match="ran out of steps"):
            await streamed(team, "Someone used my card", team.context())
        return await engine.query()

    [record] = run(tmp_path, body)
    assert record.status is HandoffStatus.failed and record.failure is FailureReason.error
    assert record.response is not None and "ran out of steps" in record.response.reason


@pytest.mark.parametrize("how", ["stop reading", "cancel"])
def test_a_stream_stopped_or_cancelled_fails_the_holders_record_as_cancelled(
    tmp_path: Path, how: str,
) -> None:
    model = ScriptedModel([
        call("handoff_fraud_agent", reason="stolen card", card_last4="4421"),
        say("Fraud team here."),
    ])

    async def body(engine: AsyncEngine) -> Any:
        team = AgentTeam(engine, model=model)
        turn = await team.run_streamed("Someone used my card", team.context())
        async with aclosing(turn.stream_events()) as events:
            async for event in events:
                if event.type == "agent_updated_stream_event" and \
                        event.new_agent.name == "fraud_agent":
                    if how == "stop reading":
                        break
                    turn.cancel()
        return await engine.query()

    [record] = run(tmp_path, body)
    assert record.status is HandoffStatus.failed
    assert record.failure is FailureReason.cancelled


def test_the_sdks_own_scripted_model_streams_through_the_engine(tmp_path: Path) -> None:
    testing = pytest.importorskip("agents.testing", reason="openai-agents without agents.testing")
    model = testing.ScriptedModel([
        [testing.function_call("handoff_fraud_agent", {"reason": "x"}, call_id="c1")],
        [testing.function_call("handoff_fraud_agent",
                               {"reason": "card used by someone else", "card_last4": "4421"},
                               call_id="c2")],
        [testing.assistant_message("You're through to the fraud team.")],
    ])

    facts = Facts()

    async def body(engine: AsyncEngine) -> Any:
        engine.engine.observe(facts)
        team = AgentTeam(engine, model=model)
        context = team.context()
        result = await streamed(team, "Someone used my card", context)
        await team.end(context)
        return result, await engine.query()

    result, records = run(tmp_path, body)
    assert [call.streamed for call in model.calls] == [True, True, True]
    assert result.last_agent.name == "fraud_agent"
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.completed]
    assert [(f.outcome, f.tool_call_id) for f in facts.seen] == [("refused", "c1"),
                                                                 ("routed", "c2")]
    model.assert_complete()
