"""The receiver gets what the sender gave (seed 000: the context is the payload passed to the
receiver; seed 002: system vars carry the shared context), while what is stored, exported,
logged and shown is redacted. `deliver: redacted` makes the receiver see the stored copy."""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.console.records import RecordsView
from engine.lifecycle import HandoffManager, HandoffRequest
from engine.lifecycle.delivery import IntactPayloads
from engine.observability.jsonlog import JsonLogObserver, log_json_to
from engine.redaction import REDACTED
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import SQLiteStore

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
PIN, OTP, CARD, TOKEN = "4321", "918273", "4111111111111111", "tok-9f8e7d6c"
CONTEXT = {"customer_id": "C-1", "pin": PIN, "otp": OTP, "card_number": CARD,
           "session_token": TOKEN}
SECRETS = (PIN, OTP, CARD, TOKEN)


def leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def banking(tmp_path: Path, extra_root: str = "") -> Path:
    """banking, with the fraud desk's context policy sharing `pin` (not `otp`)."""
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    agent = folder / "agents" / "fraud_agent.yaml"
    agent.write_text(agent.read_text(encoding="utf-8").replace(
        "carry: [customer_id,", "carry: [pin, customer_id,"), encoding="utf-8")
    root = folder / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8") + extra_root, encoding="utf-8")
    return folder


def _request() -> HandoffRequest:
    return HandoffRequest(from_agent="triage", to_agent="fraud",
                          task_description="Verify the caller", context=CONTEXT)


def test_a_seed_manager_hands_the_payload_over_intact_and_stores_it_redacted(
    tmp_path: Path,
) -> None:
    db = tmp_path / "records.db"
    manager = HandoffManager(store=SQLiteStore(db))
    created = manager.create_handoff(_request())
    record_id = created.record_id
    assert created.request.context == CONTEXT  # what the receiver reads
    assert manager.get(record_id).request.context == CONTEXT
    assert manager.list_records()[0].request.context == CONTEXT
    manager.accept(record_id)
    done = manager.complete(record_id, {"otp": OTP, "verified": True})
    assert done.result == {"otp": OTP, "verified": True}  # what the sender reads back
    assert manager.get(record_id).result == {"otp": OTP, "verified": True}
    stored = manager.store.get(record_id)
    assert stored.request.context["pin"] == REDACTED and stored.result["otp"] == REDACTED
    assert leaked(repr(stored)) == [] and leaked(repr(manager.export())) == []
    other_process = HandoffManager(store=SQLiteStore(db))  # the secret never left this one
    assert other_process.get(record_id).request.context["pin"] == REDACTED
    manager.store.close()
    other_process.store.close()
    assert leaked(db.read_bytes().decode("utf-8", "replace")) == []


def test_deliver_redacted_hands_the_receiver_the_stored_copy() -> None:
    manager = HandoffManager(deliver="redacted")
    created = manager.create_handoff(_request())
    assert created.request.context["pin"] == REDACTED
    assert manager.get(created.record_id) == manager.store.get(created.record_id)


def test_intact_payloads_are_bounded_and_never_stale() -> None:
    manager = HandoffManager()
    manager.intact = IntactPayloads(limit=1)
    first = manager.create_handoff(_request()).record_id
    second = manager.create_handoff(_request()).record_id
    assert len(manager.intact) == 1
    assert manager.get(first).request.context["pin"] == REDACTED  # dropped: as stored
    assert manager.get(second).request.context["pin"] == PIN


def test_the_engine_delivers_the_shared_secret_and_shows_it_nowhere(tmp_path: Path) -> None:
    db = tmp_path / "records.db"
    events: list[Event] = []
    stream = io.StringIO()
    handler = log_json_to(stream)
    try:
        with Engine(banking(tmp_path), store=db, sweep_interval_s=None) as engine:
            engine.observe(JsonLogObserver())
            engine.on("handoff_created", events.append)
            engine.on("handoff_moved", events.append)
            engine.on("handoff_created", lambda event: logging.getLogger("engine.app").info(
                "created %s", event.data))
            outcome = engine.handoff("my card was stolen", sender="concierge",
                                     tool="handoff_fraud_agent", context=CONTEXT,
                                     tool_args={"reason": "stolen card"})
            assert outcome.target == "fraud_agent"
            shared = outcome.system_vars["handoff_context"]
            assert shared == {"customer_id": "C-1", "pin": PIN}  # the policy shares no otp
            assert outcome.record.request.context == CONTEXT
            record_id = outcome.record.record_id
            engine.accept(record_id)
            assert engine.complete(record_id, {"card_number": CARD}).result == {
                "card_number": CARD}
            stored = engine.manager.store.get(record_id)
            shown = RecordsView(engine.manager.store).get(record_id)
            assert leaked(repr([stored, shown, engine.manager.export()])) == []
            assert leaked(repr([event.data for event in events])) == [] and len(events) == 3
    finally:
        logging.getLogger("engine").removeHandler(handler)
    assert "created" in stream.getvalue() and leaked(stream.getvalue()) == []
    for action in (["show", record_id], ["export"]):
        printed = subprocess.run(
            [sys.executable, "-m", "engine", "records", *action, "--store", str(db)],
            capture_output=True, text=True, check=True).stdout
        assert REDACTED in printed and leaked(printed) == []


@pytest.mark.parametrize("shared", ["tool_result", "context"])
def test_a_config_can_deliver_redacted(tmp_path: Path, shared: str) -> None:
    folder = banking(tmp_path, "redact:\n  deliver: redacted\n")
    with Engine(folder, sweep_interval_s=None) as engine:
        session = engine.session()
        given = {"tool_result": {"handoff_context": CONTEXT}} if shared == "tool_result" else {}
        outcome = engine.handoff("my card was stolen", session=session,
                                 tool="handoff_fraud_agent", context=CONTEXT,
                                 tool_args={"reason": "stolen card"}, **given)
        assert outcome.system_vars["handoff_context"] == {"customer_id": "C-1", "pin": REDACTED}
        assert session.system_vars["handoff_context"]["pin"] == REDACTED
        assert outcome.record.request.context["pin"] == REDACTED
        assert leaked(repr(outcome)) == []


def test_a_sender_waiting_for_the_result_gets_it_intact() -> None:
    with Engine(BANKING, sweep_interval_s=None) as engine:
        outcome = engine.handoff("my card was stolen", sender="concierge")
        record_id = outcome.record.record_id
        engine.accept(record_id)
        engine.complete(record_id, {"otp": OTP})
        assert engine.wait_status(record_id, "completed", timeout_s=None).result == {"otp": OTP}
        assert engine.manager.store.get(record_id).result == {"otp": REDACTED}
