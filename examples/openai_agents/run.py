"""The banking concierge on the OpenAI Agents SDK: `python examples/openai_agents/run.py`.

The SDK's agents and handoffs come from configs/banking; each caller turn is routed through the
engine first (rules, keywords, examples), and every handoff the model calls is decided, checked
and recorded by the engine (SQLite) before the SDK performs it: a refusal reaches the model as
the call's tool output. Records follow the call: accepted when the target takes its first turn,
completed when the call ends. Offline, a scripted model plays the agents; with OPENAI_API_KEY
set, each agent runs its configured model instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path
from textwrap import shorten

from agents import set_tracing_disabled

from engine import AsyncEngine, Event
from engine.adapters.openai_agents import AgentTeam
from engine.adapters.scripted import call, say
from engine.adapters.scripted.openai_agents import ScriptedModel

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
CALLER = ("Two charges on my statement look odd.",
          "Yes please, freeze it.")
SCRIPT = (  # what the agents' models do when no API key is set
    call("handoff_fraud_agent", reason="x"),  # too short: the engine refuses the payload
    call("handoff_fraud_agent", reason="two unrecognised card charges", card_last4="4421"),
    say("You're through to the fraud team. Shall I freeze the card ending 4421?"),
    say("Done: the card is frozen and case F-88231 is open."),
)


def show(event: Event) -> None:
    decision, record = event.data["decision"], event.data["record"]
    verdict = (f"routed by {decision.layer.value}" if record.status.value == "pending"
               else f"refused: {shorten(record.response.reason, 80)}")
    print(f"  engine: {record.request.from_agent} -> {record.request.to_agent} {verdict}")


async def main(db: Path) -> int:
    real = bool(os.environ.get("OPENAI_API_KEY"))
    set_tracing_disabled(not real)
    async with await AsyncEngine.open(BANKING, store=db) as engine:
        engine.on("handoff_created", show)
        team = AgentTeam(engine, model=None if real else ScriptedModel(SCRIPT), route_input=True)
        call_context = team.context(customer_id="C-1042", caller_verified=True)
        print(f"== {'live model' if real else 'scripted model'}, config {engine.snapshot.version}")
        for words in CALLER:
            print(f"caller: {words}")
            result = await team.run(words, call_context)
            print(f"[{result.last_agent.name}] {result.final_output}")
        await team.end(call_context)  # the caller hung up: the holder's record completes
        print(f"path: {' -> '.join(call_context.session.path)}")
        records = await engine.query()
        print(f"== {len(records)} handoff record(s) in {db}")
        for record in records:
            print(f"{record.request.from_agent} -> {record.request.to_agent}: "
                  f"{record.status.value} (config {record.config_version})")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="SQLite file for the records (default: temporary)")
    db = parser.parse_args().db or Path(tempfile.mkdtemp(prefix="openai-agents-")) / "h.sqlite"
    raise SystemExit(asyncio.run(main(db)))
