"""Engine.handoff refuses a payload that breaks the target's payload_schema, audited."""

from __future__ import annotations

from pathlib import Path

from engine.lifecycle import HandoffStatus
from engine.runtime.capsule import export_capsule
from engine.runtime.engine import Engine
from engine.specs import verify

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


def test_invalid_payload_is_a_rejected_record_and_the_session_stays() -> None:
    with Engine(BANKING) as engine:
        session = engine.session()
        seen: list[object] = []
        engine.on("handoff_created", seen.append)
        outcome = engine.handoff("my card was stolen", session=session,
                                 tool="handoff_fraud_agent", tool_args={"reason": "x"})
        assert outcome.target is None and not outcome.accepted_by_policy
        assert outcome.refusal is not None and outcome.refusal.field_path == "reason"
        assert outcome.decision.target == "fraud_agent"
        record = engine.manager.get(outcome.record.record_id)
        assert record.status is HandoffStatus.rejected
        assert [move.to for move in record.history] == [HandoffStatus.pending,
                                                        HandoffStatus.rejected]
        assert record.response is not None
        assert record.response.reason.startswith("invalid_payload: payload from 'concierge'")
        assert session.active_agent == "concierge" and session.hops == ()
        assert outcome.system_vars == {} and len(seen) == 1
        good = engine.handoff("my card was stolen", session=session,
                              tool="handoff_fraud_agent", tool_args={"reason": "stolen card"})
        assert good.target == "fraud_agent" and good.refusal is None
        assert session.active_agent == "fraud_agent"
        text_only = engine.handoff("card stolen again", sender="concierge")
        assert text_only.refusal is None  # routed from text: no payload to check
        capsule = export_capsule(engine, session, records=[outcome.record])
        steps = [(s["step_type"], s.get("error_code")) for s in capsule["execution_trace"]]
        assert steps == [("error", 301), ("sub_agent_spawn", None)] and verify(capsule)
