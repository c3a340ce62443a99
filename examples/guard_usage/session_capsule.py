"""Handoff payloads checked against the target's schema, and a session exported as a capsule.

Run: python examples/guard_usage/session_capsule.py
A voice banking call on configs/banking: a bad handoff payload is refused with a precise reason,
the good one is routed and completed, and the call is exported as a sealed run capsule.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.runtime.capsule import export_capsule
from engine.runtime.engine import Engine
from engine.runtime.payloads import check_payload
from engine.specs import verify

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"


def main() -> None:
    with Engine(BANKING) as engine:
        session = engine.session()
        sloppy = {"reason": "x", "card_last4": "12a4"}  # what a model might put in the call
        refusal = check_payload(engine.snapshot, sender=session.active_agent,
                                target="fraud_agent", payload=sloppy)
        if refusal is not None:
            print(f"refused: {refusal.response_reason}")
        fixed = {"reason": "card stolen", "card_last4": "1234"}
        outcome = engine.handoff("my card was stolen", session=session,
                                 tool="handoff_fraud_agent", tool_args=fixed)
        print(f"handed off to {outcome.target}; the session is on {session.active_agent}")
        record_id = outcome.record.record_id
        engine.accept(record_id, actor="fraud_agent")
        engine.start(record_id, actor="fraud_agent")
        engine.complete(record_id, {"case": "F-1042"}, actor="fraud_agent")
        capsule = export_capsule(engine, session, model_provider="openai")
    for step in capsule["execution_trace"]:
        print(f"step {step['step_index']}: {step['step_type']}")
    print(f"run: {capsule['run']['status']}; sealed and verified: {verify(capsule)}")
    tampered = json.loads(json.dumps(capsule))
    tampered["run"]["status"] = "failure"
    print(f"tampered copy verified: {verify(tampered)}")


if __name__ == "__main__":
    main()
