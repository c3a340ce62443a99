"""Fills a SQLite record store with a few banking calls, the way a voice runtime would: each
call a session on `engine.Engine`, each handoff routed, recorded and moved through its
lifecycle. Then `handoff console configs/banking --store FILE` has an audit trail to show.

`python -m examples.console_demo demo.sqlite` (the file must not exist yet).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from engine import Engine

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Step:
    """One caller turn that asks for a handoff, and what the receiving agent then does."""

    text: str
    ending: str  # "complete", "fail", "cancel", "pending" (left live) or "start"
    tool: str | None = None


CALLS: dict[str, list[Step]] = {
    "call-1001": [
        Step("Hi, there are two charges on my card from last night that I didn't make",
             "complete", tool="handoff_fraud_agent"),
        Step("Thanks, that's all, take me back please", "complete", tool="handoff_concierge"),
    ],
    "call-1002": [
        Step("My card was stolen at the station this morning", "complete"),
        Step("I also want to file a claim for the damaged phone I bought with it", "fail"),
    ],
    "call-1003": [
        Step("I'd like to invest in an index fund for my retirement", "start"),
    ],
    "call-1004": [
        Step("Which credit card is best for travel with no foreign fees", "cancel"),
        Step("Actually, someone used my card online", "complete", tool="handoff_fraud_agent"),
    ],
    "call-1005": [
        Step("I want to make a formal complaint about how my account was closed", "pending"),
    ],
}
CONTEXT = {"customer_id": "C-1042", "customer_tier": "standard", "pin": "4921"}


def _finish(engine: Engine, record_id: str, step: Step) -> None:
    if step.ending == "pending":
        return
    engine.accept(record_id)
    if step.ending == "cancel":
        engine.cancel(record_id, "caller hung up")
        return
    engine.start(record_id)
    if step.ending == "complete":
        engine.complete(record_id, {"resolved": True, "api_token": "tok-123"})
    elif step.ending == "fail":
        engine.fail(record_id, "the claims system did not answer")


def record_calls(config: Path, store: Path) -> int:
    """Run every call of `CALLS` against `config`, recording into `store`; the record count."""
    count = 0
    with Engine(config, store=store, sweep_interval_s=None) as engine:
        for session_id, steps in CALLS.items():
            session = engine.session(session_id=session_id)
            for step in steps:
                context = {**CONTEXT, "session_id": session_id}
                outcome = engine.handoff(step.text, session=session, tool=step.tool,
                                         context=context, tool_args={"reason": step.text})
                count += 1
                if outcome.target is not None:
                    _finish(engine, outcome.record.record_id, step)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m examples.console_demo",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, help="the SQLite file to create")
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "banking")
    args = parser.parse_args(argv)
    if args.store.exists():
        parser.error(f"{args.store} exists; pass a new file")
    count = record_calls(args.config, args.store)
    print(f"recorded {count} handoff(s) of {len(CALLS)} calls in {args.store}")
    print(f"now: handoff console {args.config} --store {args.store}")
    return 0
