"""A research team as a LangGraph supervisor graph: `python examples/langgraph/run.py`.

The coordinator (configs/research's entry agent) hands work to the analyst with a handoff tool
whose `Command(goto=...)` the engine decides; a worker reports back through the engine too. On
the second turn the engine's router routes the caller's words ("write the brief") to the writer
before any model runs. Ending the call completes the last record. Offline, a scripted chat model
plays the agents; with OPENAI_API_KEY set (and langchain-openai installed) a real model does.
`--swarm` runs the swarm graph instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from engine import AsyncEngine
from engine.adapters.langgraph import HandoffGraph
from engine.adapters.scripted import Step, call, say
from engine.adapters.scripted.langgraph import ScriptedChatModel

RESEARCH = Path(__file__).resolve().parents[2] / "configs" / "research"
ASK = ("How large is the EU heat-pump market?", "Please write the brief now.")
SUPERVISOR = (  # what the models do without an API key, agent by agent
    call("handoff_analyst", question="EU heat-pump unit sales, last three years"),  # coordinator
    say("Findings: about 3 million units a year, growing 10% yearly."),            # analyst
    say("The analyst's findings are above; ask for the brief when ready."),        # coordinator
    say("Brief: a 3M-unit market growing 10% a year; lead with installers."),      # writer
    say("Done: the analyst's findings and the writer's brief are above."),        # coordinator
)
SWARM = (
    call("handoff_analyst", question="EU heat-pump unit sales, last three years"),  # coordinator
    say("Findings: about 3 million units a year, growing 10% yearly."),            # analyst
    say("Brief: a 3M-unit market growing 10% a year; lead with installers."),      # writer
)
CALL = {"configurable": {"thread_id": "call-1"}}  # the thread id is the call's session id


def chat_model(script: tuple[Step, ...]) -> BaseChatModel:
    if not os.environ.get("OPENAI_API_KEY"):
        return ScriptedChatModel.of(script)
    from langchain_openai import ChatOpenAI  # pip install langchain-openai

    return ChatOpenAI(model="gpt-4o-mini")


async def main(swarm: bool) -> int:
    async with await AsyncEngine.open(RESEARCH) as engine:
        team = HandoffGraph(engine, model=chat_model(SWARM if swarm else SUPERVISOR))
        graph = (team.swarm() if swarm else team.supervisor()).compile(InMemorySaver())
        print(f"== {'swarm' if swarm else 'supervisor'} graph on {engine.snapshot.version}")
        for words in ASK:
            print(f"user: {words}")
            async for namespace, update in graph.astream(
                    {"messages": [HumanMessage(words)]}, CALL, stream_mode="updates",
                    subgraphs=True):
                if namespace and "model" in update:  # one agent's model turn, in its subgraph
                    agent, message = namespace[0].split(":")[0], update["model"]["messages"][-1]
                    for tool_call in message.tool_calls:
                        print(f"[{agent}] calls {tool_call['name']}({tool_call['args']})")
                    if message.content:
                        print(f"[{agent}] {message.content}")
        await team.end("call-1")  # the caller hung up: the holder's record completes
        for record in await engine.query():
            print(f"handoff {record.request.from_agent} -> {record.request.to_agent}: "
                  f"{record.status.value}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swarm", action="store_true", help="the swarm graph instead")
    raise SystemExit(asyncio.run(main(parser.parse_args().swarm)))
