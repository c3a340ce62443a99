"""Run the example pipeline: python examples/pump_pipeline/run.py (any working directory)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

from engine.pump.config import load_pump_config

QUESTIONS = ["What causes tides?", "Tell me about unicorns", "Tell me about nothing"]


async def main() -> int:
    config = load_pump_config(Path(__file__).with_name("listeners.yaml"))
    pump = config.build()
    await pump.start()
    for question in QUESTIONS:
        print(f"> {question}", flush=True)
        reply = await pump.request("desk", {"text": question}, timeout=10)
        print(f"< {type(reply).__name__}: {reply.text}", flush=True)
    report = await pump.shutdown()
    print(f"drained: {report.drained}")
    print("stats: " + json.dumps(report.stats.to_dict(), sort_keys=True))
    return 0


if __name__ == "__main__":
    # Pump details (blocked sends with their call chain, handler tracebacks) go to the log only.
    logging.basicConfig(level=logging.WARNING, format="log: %(levelname)s %(name)s: %(message)s")
    raise SystemExit(asyncio.run(main()))
