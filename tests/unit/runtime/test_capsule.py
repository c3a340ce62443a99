"""A finished session on the banking config exported as a sealed capsule_format_v1 capsule."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import SchemaValidationError, StoreError, UsageError
from engine.lifecycle import HandoffRequest
from engine.runtime.capsule import RunExport, export_capsule, export_run
from engine.runtime.engine import Engine, HandoffOutcome
from engine.runtime.payloads import check_payload
from engine.runtime.session import Session
from engine.specs import parse_spec, seal, to_agent_error, validate, validate_error, verify
from engine.specs.models import RunCapsule

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


@pytest.fixture
def engine() -> Iterator[Engine]:
    with Engine(BANKING) as engine:
        yield engine


def _refuse_payload(engine: Engine, sender: str, target: str, payload: Any) -> str:
    """What the engine records for a payload that breaks the target's schema: the check
    runs first, then a record is created and rejected with `invalid_payload: ...`."""
    refusal = check_payload(engine.snapshot, sender=sender, target=target, payload=payload)
    assert refusal is not None
    record = engine.manager.create_handoff(
        HandoffRequest(from_agent=sender, to_agent=target, task_description="payload"),
        config_version=engine.version,
    )
    return engine.manager.reject(record.record_id, refusal.response_reason,
                                 actor="policy").record_id


@pytest.fixture
def scripted(engine: Engine) -> tuple[Session, list[str]]:
    """concierge -> fraud_agent (completed), a refused peer, a refused payload,
    fraud_agent -> claims (failed), then a handoff from claims left pending."""
    session = engine.session()
    refused: list[str] = []
    fraud = engine.handoff("my card was stolen", session=session, tool="handoff_fraud_agent",
                           tool_args={"reason": "stolen card"})
    engine.accept(fraud.record.record_id)
    engine.start(fraud.record.record_id)
    engine.complete(fraud.record.record_id, {"case": "F-1"})
    peer = engine.handoff("compare cards", session=session, tool="handoff_card_recommendation")
    assert peer.target is None
    refused.append(peer.record.record_id)
    refused.append(_refuse_payload(engine, "concierge", "fraud_agent", {"reason": "x"}))
    claims = engine.handoff("file a claim", session=session, tool="handoff_claims")
    engine.accept(claims.record.record_id)
    engine.fail(claims.record.record_id, "claims system down")
    back: HandoffOutcome = engine.handoff("thanks, that's all", session=session)
    assert back.target is not None
    return session, refused


def _types(capsule: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(step["step_type"], step.get("error_code")) for step in capsule["execution_trace"]]


def test_scripted_session_exports_a_valid_sealed_capsule(
    engine: Engine, scripted: tuple[Session, list[str]]
) -> None:
    session, refused = scripted
    capsule = export_capsule(engine, session, records=refused)
    parsed = parse_spec(capsule, "capsule_format_v1")
    assert isinstance(parsed, RunCapsule)
    assert validate(capsule, "capsule_format_v1") is True
    assert verify(capsule) and capsule["integrity"]["capsule_hash"].startswith("sha256:")
    signed = seal(capsule, signature="c2ln", signing_key_id="banking-engine")
    assert verify(signed) and validate(signed, "capsule_format_v1")
    trace = capsule["execution_trace"]
    assert [step["step_index"] for step in trace] == list(range(len(trace)))
    assert _types(capsule) == [
        ("sub_agent_spawn", None), ("sub_agent_result", None),  # fraud: completed
        ("error", 401),  # card_recommendation is not a peer of fraud_agent
        ("error", 301),  # payload broke fraud_agent's schema
        ("sub_agent_spawn", None), ("sub_agent_result", 608),  # claims: failed
        ("sub_agent_spawn", None),  # back to a desk: still pending
    ]
    hop_ids = [hop.record_id for hop in session.hops]
    assert [trace[i]["tool_call_id"] for i in (0, 2, 3, 4, 6)] == [
        hop_ids[0], *refused, hop_ids[1], hop_ids[2]]
    assert capsule["agent"]["agent_id"] == "concierge"
    assert capsule["agent"]["model"] == {"provider": "local", "model_id": "gpt-4o"}
    assert capsule["environment"]["extra"]["config_version"] == engine.version
    assert capsule["run"]["run_id"] == session.session_id
    assert capsule["run"]["status"] == "partial"  # a handoff is still pending
    assert capsule["run"]["triggered_by"] == "human"
    assert "path: concierge -> fraud_agent -> claims" in capsule["outcome"]["final_answer"]
    assert capsule["outcome"]["errors_encountered"] == [401, 301, 608]
    assert capsule["outcome"]["total_steps"] == len(trace)
    assert trace[2]["error_message"].startswith("handoff refused (not_allowed): ")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: c["execution_trace"][2].update(error_code=600),
        lambda c: c["execution_trace"].pop(),
        lambda c: c["run"].update(status="success"),
        lambda c: c["run"].update(run_id="another-run"),
    ],
    ids=["error-code", "dropped-step", "outcome", "run-id"],
)
def test_tampering_breaks_verification(
    engine: Engine, scripted: tuple[Session, list[str]], tamper: Any
) -> None:
    session, refused = scripted
    capsule = export_capsule(engine, session, records=refused)
    assert verify(capsule)
    tampered = copy.deepcopy(capsule)
    tamper(tampered)
    assert not verify(tampered)
    assert verify(capsule)


def test_errors_are_taxonomy_instances_pointing_at_their_steps(
    engine: Engine, scripted: tuple[Session, list[str]]
) -> None:
    session, refused = scripted
    when = datetime.now(timezone.utc)
    raised = to_agent_error(StoreError("/x.db", "locked"), agent_id="claims", at=when)
    export = export_run(engine, session, records=refused, errors=[raised, UsageError("bad")])
    assert isinstance(export, RunExport)
    trace = export.capsule["execution_trace"]
    codes = [error.code for error in export.errors]
    assert codes == [401, 301, 608, 501, 621]
    for error in export.errors:
        assert trace[error.step_index or 0]["error_code"] == error.code
        assert error.run_id == session.session_id
        assert validate_error(error.model_dump(mode="json"))
    refused_peer, bad_payload, failed = export.errors[:3]
    assert refused_peer.agent_id == "fraud_agent"
    assert refused_peer.context["reason"] == "not_allowed"
    assert bad_payload.recoverable and bad_payload.context["to_agent"] == "fraud_agent"
    assert failed.agent_id == "claims" and "claims system down" in failed.message
    assert export.errors[3].timestamp == when


def test_failure_outcome_lists_its_error_codes(
    engine: Engine, scripted: tuple[Session, list[str]]
) -> None:
    session, refused = scripted
    capsule = export_capsule(engine, session, records=refused, outcome="failure",
                             errors=[StoreError("/x.db", "locked")])
    assert capsule["run"]["status"] == "failure"
    assert capsule["outcome"]["errors_encountered"] == [401, 301, 608, 501]
    explicit = export_capsule(engine, session, outcome="failure", error_code=605,
                              error_message="nobody took it")
    assert explicit["outcome"]["errors_encountered"][-1] == 605 and verify(explicit)
    assert explicit["outcome"]["final_answer"].endswith("; failed: nobody took it")


def test_failure_without_any_error_is_valid(engine: Engine) -> None:
    capsule = export_capsule(engine, engine.session(), outcome="failure")
    assert capsule["outcome"]["errors_encountered"] == [] and verify(capsule)


def test_model_and_versions_come_from_the_agent_or_the_options(engine: Engine) -> None:
    capsule = export_capsule(engine, engine.session(), model_provider="openai",
                             model_id="gpt-4o-mini", goal="help the caller")
    assert capsule["agent"]["model"] == {"provider": "openai", "model_id": "gpt-4o-mini"}
    assert capsule["agent"]["agent_version"] == "0.0.0"  # no metadata.version: unversioned
    assert capsule["run"]["goal"] == "help the caller"
    environment = capsule["environment"]
    assert environment["python_version"].count(".") == 2
    assert environment["extra"]["environment"] == "development"
    with pytest.raises(UsageError, match="model_provider 'acme' is not one of: "):
        export_capsule(engine, engine.session(), model_provider="acme")


@pytest.mark.parametrize(
    ("option", "value"),
    [("trigger", "robot"), ("outcome", "fine"), ("environment", "prod"),
     ("sandbox_tier", "vm")],
)
def test_bad_options_are_usage_errors_listing_the_choices(
    engine: Engine, option: str, value: str
) -> None:
    with pytest.raises(UsageError, match=f"{option} '{value}' is not one of: "):
        export_capsule(engine, engine.session(), **{option: value})


def test_an_invalid_capsule_field_is_reported_not_sealed(engine: Engine) -> None:
    with pytest.raises(SchemaValidationError):
        export_capsule(engine, engine.session(), goal="g" * 2049)


def test_empty_session_and_explicit_times(engine: Engine) -> None:
    start = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
    end = datetime(2026, 1, 5, 9, 3, tzinfo=timezone.utc)
    capsule = export_capsule(engine, engine.session(), started_at=start, at=end,
                             trigger="test", region="eu-west-1")
    assert capsule["execution_trace"] == [] and verify(capsule)
    assert (capsule["run"]["started_at"], capsule["run"]["ended_at"]) == (
        "2026-01-05T09:00:00.000000Z", "2026-01-05T09:03:00.000000Z")
    assert capsule["run"]["triggered_by"] == "test"
    assert capsule["environment"]["extra"]["region"] == "eu-west-1"
    assert capsule["outcome"] == {"final_answer": "0 handoff(s), 0 refused; path: concierge",
                                  "total_steps": 0, "errors_encountered": []}


def test_cancelled_pending_handoff_is_one_error_step(engine: Engine) -> None:
    session = engine.session()
    outcome = engine.handoff("card stolen", session=session, tool="handoff_fraud_agent")
    engine.cancel(outcome.record.record_id, "caller hung up")
    capsule = export_capsule(engine, session)
    assert _types(capsule) == [("error", 607)]
    assert capsule["run"]["status"] == "success"


def test_human_desk_is_a_human_handoff(tmp_path: Path) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    desk = folder / "agents" / "compliance_desk.yaml"
    desk.write_text(desk.read_text(encoding="utf-8") + "  human: true\n", encoding="utf-8")
    with Engine(folder, store=tmp_path / "handoffs.sqlite") as engine:
        session = engine.session()
        outcome = engine.handoff("formal complaint", session=session,
                                 tool="handoff_compliance_desk")
        engine.accept(outcome.record.record_id)
        engine.complete(outcome.record.record_id, {})
        capsule = export_capsule(engine, session)
    assert _types(capsule) == [("human_handoff", None), ("sub_agent_result", None)]
    assert verify(capsule) and validate(capsule, "capsule_format_v1")


MOVES = {
    "none": (), "accept": ("accept",), "start": ("accept", "start"),
    "complete": ("accept", "start", "complete"), "fail": ("accept", "fail"),
    "reject": ("reject",), "cancel": ("cancel",), "late-cancel": ("accept", "cancel"),
}
TOOLS = ("handoff_fraud_agent", "handoff_claims", "handoff_compliance_desk",
         "handoff_card_recommendation", "handoff_investment_advisor", "handoff_concierge")


def _move(engine: Engine, record_id: str, move: str) -> None:
    if move == "complete":
        engine.complete(record_id, {})
    elif move in ("reject", "fail", "cancel"):
        getattr(engine, move)(record_id, f"{move} by test")
    else:
        getattr(engine, move)(record_id)


@pytest.fixture(scope="module")
def shared_engine() -> Iterator[Engine]:
    with Engine(BANKING) as engine:
        yield engine


@settings(max_examples=40, deadline=None)
@given(plan=st.lists(st.tuples(st.sampled_from(TOOLS), st.sampled_from(sorted(MOVES))),
                     max_size=6))
def test_any_session_exports_a_valid_contiguous_verified_capsule(
    shared_engine: Engine, plan: list[tuple[str, str]]
) -> None:
    engine, session = shared_engine, shared_engine.session()
    extra: list[str] = []
    for tool, moves in plan:
        outcome = engine.handoff("", session=session, tool=tool)
        if outcome.target is None:
            extra.append(outcome.record.record_id)
            continue
        for move in MOVES[moves]:
            _move(engine, outcome.record.record_id, move)
    export = export_run(engine, session, records=extra)
    capsule = export.capsule
    assert isinstance(parse_spec(capsule, "capsule_format_v1"), RunCapsule) and verify(capsule)
    trace = capsule["execution_trace"]
    assert [step["step_index"] for step in trace] == list(range(len(trace)))
    assert [s["started_at"] for s in trace] == sorted(s["started_at"] for s in trace)
    assert {s["tool_call_id"] for s in trace} == {
        *extra, *(hop.record_id for hop in session.hops)}
    assert [e.step_index for e in export.errors] == [
        i for i, s in enumerate(trace) if "error_code" in s]
