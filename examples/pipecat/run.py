"""A voice banking call on Pipecat Flows: `python examples/pipecat/run.py [--db FILE]`.

Each config agent is a Flows node built from the serving config when it is entered; its handoff
functions return the next node only when the engine routes them, and the engine's router sits
in the pipeline so its rules act on the caller's own words. The call runs in text (the caller's
lines go into the context where speech-to-text would put them); offline a scripted LLM plays the
agents, with OPENAI_API_KEY set a real one does. With audio, put your transport, STT and TTS
around the same processors.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path

from pipecat.flows import FlowManager
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import LLMContextAggregatorPair
from pipecat.services.llm_service import LLMService
from pipecat.workers.runner import WorkerRunner

from engine import AsyncEngine
from engine.adapters.pipecat import EngineFlow
from engine.adapters.scripted import call, say
from engine.adapters.scripted.pipecat import ScriptedLLM, TextCaller

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"
CALLER = ("Hi, I need some help with my card.",
          "I think my card was stolen.",                # the engine's rule moves the caller
          "It ends in 4421.",
          "Thanks, that's all. Back to the main desk please.")
SCRIPT = (  # what the agents' models do without an API key
    say("Thanks for calling Contoso Bank, this is Ava. How can I help?"),
    call("handoff_fraud_agent", reason="x"),  # the engine refuses the payload: reason too short
    say("Of course. What's happened to the card?"),
    say("This is the fraud team. Which four digits does the card end in?"),
    say("I've frozen the card ending 4421 and opened case F-88231."),
    call("handoff_concierge", reason="fraud case opened"),
    say("Welcome back. Is there anything else I can help you with?"),
)


def model() -> LLMService:
    if not os.environ.get("OPENAI_API_KEY"):
        return ScriptedLLM(SCRIPT)
    from pipecat.services.openai.llm import OpenAILLMService

    return OpenAILLMService(api_key=os.environ["OPENAI_API_KEY"])


async def main(db: str | None) -> int:
    async with await AsyncEngine.open(BANKING, store=db) as engine:
        flow = EngineFlow(engine)
        flow_call = flow.call(customer_id="C-1042", caller_verified=True)
        llm, aggregators = model(), LLMContextAggregatorPair(LLMContext())
        pipeline = Pipeline([aggregators.user(), flow.router(flow_call), llm,
                             aggregators.assistant()])
        worker = PipelineWorker(pipeline, enable_rtvi=False)
        manager = FlowManager(llm=llm, context_aggregator=aggregators, worker=worker)
        caller = TextCaller(worker, aggregators.assistant())

        async def started(_worker: PipelineWorker, _frame: object) -> None:
            await flow.start(manager, flow_call)

        async def talk() -> None:
            print(f"[{flow_call.session.active_agent}] {await caller.reply()}")
            seen = 0
            for words in CALLER:
                print(f"caller: {words}")
                reply = await caller.say(words)
                records = await engine.query()
                for record in records[seen:]:  # what the engine decided on this turn
                    refused = record.status.value == "rejected" and record.response
                    decided = f"refused: {refused.reason[:60]}" if refused else "routed"
                    print(f"  engine: {record.request.to_agent} {decided}")
                seen = len(records)
                print(f"[{flow_call.session.active_agent}] {reply}")
            await caller.hang_up()

        worker.add_event_handler("on_pipeline_started", started)
        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(worker)
        await asyncio.gather(runner.run(), talk())
        print(f"call path: {' -> '.join(flow_call.session.path)}")
        for record in await engine.query():
            print(f"handoff {record.request.from_agent} -> {record.request.to_agent}: "
                  f"{record.status.value}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a SQLite file for the handoff records (default: memory)")
    raise SystemExit(asyncio.run(main(parser.parse_args().db)))
