"""A voice banking call on LiveKit Agents: `python examples/livekit/run.py`.

Each config agent is a LiveKit agent with its instructions, voice and greeting from its metadata.
The engine decides every switch: the caller's words go through its rules before the model
answers (the user-turn hook; typed words through `team.caller_says`, as in a room's chat),
and a model's handoff tool switches agents only when the engine routes it (a refusal is a
`ToolError` the model reads). Records follow the call: accepted when the agent takes over,
completed when it hands on or the session closes. The call runs in LiveKit's text mode (no room
or audio). Offline a scripted LLM plays the agents; with OPENAI_API_KEY set (and
livekit-plugins-openai installed) a real one does. In a room: docs/integrations/livekit.md.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from livekit.agents import AgentSession, llm

from engine import AsyncEngine
from engine.adapters.common import voice_for
from engine.adapters.livekit import VoiceCall, VoiceTeam
from engine.adapters.scripted import call, say
from engine.adapters.scripted.livekit import ScriptedLLM

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
CALLER = ("Hi, I need some help with my card.",
          "There are two charges on my card from last night that I didn't make.",
          "It ends in 4421.",
          "Thanks, that's sorted. Take me back to the main desk please.")
SCRIPT = (  # what the agents' models do without an API key
    call("handoff_fraud_agent", reason="card help", card_last4="last four"),
    say("Of course. What's happening with the card?"),  # the engine refused the payload
    say("Which four digits does the card end in?"),  # fraud_agent, on the caller's words
    say("I've frozen the card ending 4421 and opened case F-88231."),
    call("handoff_concierge", reason="fraud case opened"),
)


def model() -> llm.LLM:
    if not os.environ.get("OPENAI_API_KEY"):
        return ScriptedLLM(SCRIPT)
    from livekit.plugins import openai  # pip install livekit-plugins-openai

    return openai.LLM(model="gpt-4o-mini")


def show(engine: AsyncEngine, session: AgentSession[Any], call: VoiceCall) -> None:
    """Print what the engine decides and what each agent says, as it happens."""
    def decided(event: Any) -> None:
        decision, record = event.data["decision"], event.data["record"]
        if record.status.value == "rejected":
            print(f"  engine: refused, {record.response.reason}"[:100])
        else:
            by = decision.rule or decision.layer.value
            print(f"  engine: routed to {decision.target} by {by}")

    def item(event: Any) -> None:
        if getattr(event.item, "role", None) == "assistant":
            agent = call.session.active_agent  # the engine's view of who holds the call
            voice = voice_for(engine.snapshot.agents[agent])
            print(f"[{agent} | {voice}] {event.item.text_content}")

    def tools(event: Any) -> None:
        for made, output in zip(event.function_calls, event.function_call_outputs, strict=True):
            print(f"  {made.name}({made.arguments})" + (" refused" if output and output.is_error
                                                         else ""))

    engine.on("handoff_created", decided)
    session.on("conversation_item_added", item)
    session.on("function_tools_executed", tools)


async def main() -> int:
    async with await AsyncEngine.open(BANKING) as engine:
        team = VoiceTeam(engine)  # tts=lambda voice: azure.TTS(voice=voice) gives each its voice
        voice_call = team.call(customer_id="C-1042", caller_verified=True)
        session = AgentSession(llm=model())
        show(engine, session, voice_call)
        entry = team.start(voice_call)
        await session.start(entry)
        await entry.entered()  # greeted
        for words in CALLER:
            print(f"caller: {words}")
            await team.caller_says(session, words)  # a room's typed turns: team.text_input
        await session.aclose()
        await voice_call.settled()
        print(f"call path: {' -> '.join(voice_call.session.path)}")
        for record in await engine.query():
            print(f"handoff {record.request.from_agent} -> {record.request.to_agent}: "
                  f"{record.status.value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
