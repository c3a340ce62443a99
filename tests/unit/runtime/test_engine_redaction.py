"""Secrets in context, tool_args and results are never stored, exported or passed to hooks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.redaction import REDACTED, Redactor
from engine.runtime.capsule import export_capsule
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import SQLiteStore

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
SECRETS = ("hunter2", "sk-live-51H8", "eyJhbGciOi", "4111111111111111", "9876")


def leaks(blob: Any) -> list[str]:
    text = blob if isinstance(blob, (str, bytes)) else repr(blob)
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return [secret for secret in SECRETS if secret in text]


def with_pin_schema(tmp_path: Path, extra_root: str = "") -> Path:
    """banking, with fraud_agent accepting an integer `pin` in its payload."""
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    agent = folder / "agents" / "fraud_agent.yaml"
    agent.write_text(agent.read_text(encoding="utf-8").replace(
        "    additionalProperties: false\n",
        "      pin: {type: integer}\n      api_key: {type: string}\n"
        "    additionalProperties: false\n"), encoding="utf-8")
    root = folder / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8") + extra_root, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_nothing_secret_reaches_the_store_the_hooks_the_exports_or_the_capsule(
    tmp_path: Path,
) -> None:
    db = tmp_path / "records.db"
    events: list[Event] = []
    with Engine(with_pin_schema(tmp_path), store=db, sweep_interval_s=None) as engine:
        for name in ("handoff_created", "handoff_moved"):
            engine.on(name, events.append)
        session = engine.session()
        context = {"customer_id": "C-1", "auth": {"Password": "hunter2"},
                   "cards": [{"card_number": "4111111111111111"}]}
        refused = engine.handoff("my card was stolen", session=session, context=context,
                                 tool="handoff_fraud_agent",
                                 tool_args={"reason": "stolen", "pin": "9876",
                                            "api_key": "sk-live-51H8"})
        assert refused.reason == "invalid_payload"
        routed = engine.handoff("my card was stolen", session=session, context=context,
                                tool="handoff_fraud_agent", tool_args={"reason": "stolen"})
        record_id = routed.record.record_id
        assert engine.manager.store.get(record_id).request.context == {
            "customer_id": "C-1", "auth": {"Password": REDACTED},
            "cards": [{"card_number": REDACTED}]}
        engine.accept(record_id)
        engine.complete(record_id, {"access_token": "eyJhbGciOi", "case": "F-1"})
        assert engine.manager.store.get(record_id).result == {
            "access_token": REDACTED, "case": "F-1"}
        capsule = export_capsule(engine, session, records=[refused.record])
        assert leaks(capsule) == []
        assert leaks([event.data for event in events]) == [] and len(events) == 4
        assert leaks(engine.manager.store.get(refused.record.record_id)) == []
    assert leaks(db.read_bytes()) == []
    for action in (["export"], ["show", record_id], ["list", "--format", "json"]):
        shown = subprocess.run(
            [sys.executable, "-m", "engine", "records", *action, "--store", str(db)],
            capture_output=True, text=True, check=True,
        ).stdout
        assert leaks(shown) == [] and (REDACTED in shown or action[0] == "list")


def test_engine_yaml_adds_patterns_or_replaces_the_defaults(tmp_path: Path) -> None:
    extra = "redact:\n  keys: [customer_id, '*_iban']\n"
    with Engine(with_pin_schema(tmp_path, extra), sweep_interval_s=None) as engine:
        outcome = engine.handoff("hi", sender="concierge", context={
            "customer_id": "C-1", "payer_iban": "DE00", "password": "p", "tier": "gold"})
        assert engine.manager.store.get(outcome.record.record_id).request.context == {
            "customer_id": REDACTED, "payer_iban": REDACTED, "password": REDACTED,
            "tier": "gold"}
    only = "redact:\n  keys: [customer_id]\n  defaults: false\n"
    with Engine(with_pin_schema(tmp_path / "b", only), sweep_interval_s=None) as engine:
        outcome = engine.handoff("hi", sender="concierge",
                                 context={"customer_id": "C-1", "password": "p"})
        assert engine.manager.store.get(outcome.record.record_id).request.context == {
            "customer_id": REDACTED, "password": "p"}


def test_records_written_without_redaction_are_redacted_on_the_way_out(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    raw = HandoffManager(store=SQLiteStore(db), redactor=Redactor(defaults=False))
    record = raw.create_handoff(HandoffRequest(
        from_agent="a", to_agent="b", task_description="t", context={"token": "eyJhbGciOi"}))
    assert record.request.context == {"token": "eyJhbGciOi"}  # stored as given, on purpose
    assert leaks(HandoffManager(store=raw.store).export()) == []
    raw.store.close()
    dump = tmp_path / "dump.json"
    subprocess.run([sys.executable, "-m", "engine", "records", "export", "--store", str(db),
                    "--output", str(dump)], capture_output=True, check=True)
    assert leaks(dump.read_text()) == [] and json.loads(dump.read_text())[0]["request"][
        "context"] == {"token": REDACTED}


@pytest.mark.parametrize("pattern", ["(a+)+$", "token\n", "*"])
def test_unsafe_patterns_in_engine_yaml_fail_the_check(tmp_path: Path, pattern: str) -> None:
    folder = with_pin_schema(tmp_path, f"redact:\n  keys: [{json.dumps(pattern)}]\n")
    done = subprocess.run([sys.executable, "-m", "engine", "check", str(folder)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "redact" in done.stdout, done.stdout + done.stderr


def test_a_reload_applies_the_new_policy_to_the_next_write(tmp_path: Path) -> None:
    folder = with_pin_schema(tmp_path)
    with Engine(folder, sweep_interval_s=None) as engine:
        before = engine.handoff("hi", sender="concierge", context={"customer_id": "C-1"})
        assert before.record.request.context == {"customer_id": "C-1"}
        root = folder / "engine.yaml"
        root.write_text(root.read_text(encoding="utf-8") + "redact:\n  keys: [customer_id]\n",
                        encoding="utf-8")
        assert engine.reload().outcome == "applied"
        after = engine.handoff("hi", sender="concierge", context={"customer_id": "C-1"})
        assert engine.manager.store.get(after.record.record_id).request.context == {
            "customer_id": REDACTED}
        assert engine.manager.store.get(before.record.record_id).request.context == {
            "customer_id": "C-1"}  # records are not rewritten; the policy applies to writes
