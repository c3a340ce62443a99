"""A voice banking call on LiveKit Agents: `python examples/livekit/run.py`.

Each config agent is a LiveKit agent with its instructions, voice and greeting from its metadata;
the handoff tools switch agents only when the engine routes them, and the call's history feeds
the loop guard. The call runs in LiveKit's text mode (`AgentSession.run`, no room or audio).
Offline a scripted LLM plays the agents; with OPENAI_API_KEY set (and livekit-plugins-openai
installed) a real one does. In a room: `await session.start(team.start(call), room=ctx.room)`.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from livekit.agents import AgentSession, llm

from engine import AsyncEngine
from engine.adapters.common import voice_for
from engine.adapters.livekit import VoiceTeam
from engine.adapters.scripted import call, say
from engine.adapters.scripted.livekit import ScriptedLLM

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
CALLER = ("Hi, there are two charges on my card from last night that I didn't make.",
          "It ends in 4421.",
          "Please freeze it.",
          "Thanks, that's sorted. Take me back to the main desk please.")
SCRIPT = (  # what the agents' models do without an API key
    call("handoff_fraud_agent", reason="unrecognised charges", card_last4="last four"),
    say("Sorry, which four digits does the card end in?"),  # the engine refused the payload
    call("handoff_fraud_agent", reason="two unrecognised card charges", card_last4="4421"),
    say("I've frozen the card ending 4421 and opened case F-88231."),
    call("handoff_concierge", reason="fraud case opened"),
)


def model() -> llm.LLM:
    if not os.environ.get("OPENAI_API_KEY"):
        return ScriptedLLM(SCRIPT)
    from livekit.plugins import openai  # pip install livekit-plugins-openai

    return openai.LLM(model="gpt-4o-mini")


async def main() -> int:
    async with await AsyncEngine.open(BANKING) as engine:
        team = VoiceTeam(engine)  # tts=lambda voice: azure.TTS(voice=voice) gives each its voice
        voice_call = team.call(customer_id="C-1042", caller_verified=True)
        async with AgentSession(llm=model()) as session:
            await session.start(team.start(voice_call))
            for words in CALLER:
                print(f"caller: {words}")
                speaker = session.current_agent.name
                for event in (await session.run(user_input=words)).events:
                    if event.type == "agent_handoff":
                        speaker = event.new_agent.name
                        print(f"  engine: routed to {speaker}")
                    elif event.type == "function_call":
                        print(f"  {speaker}'s model calls {event.item.name}"
                              f"({event.item.arguments})")
                    elif event.type == "function_call_output" and event.item.output:
                        print(f"  engine: {event.item.output[:100]}")
                    elif event.type == "message":
                        voice = voice_for(engine.snapshot.agents[speaker])
                        print(f"[{speaker} | {voice}] {event.item.text_content}")
        print(f"call path: {' -> '.join(voice_call.session.path)}")
        for record in await engine.query():
            print(f"handoff {record.request.from_agent} -> {record.request.to_agent}: "
                  f"{record.status.value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
