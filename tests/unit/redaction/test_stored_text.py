"""Secret-looking values in what callers write (the task text, context and results) are hidden
before a record is stored or an event is emitted, in every export and in the console; a config
can switch that off (`redact.values: false`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.redaction import REDACTED, Redactor
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import SQLiteStore

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
CARD = "4111 1111 1111 1111"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"


def banking(tmp_path: Path, extra_root: str = "") -> Path:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    root = folder / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8") + extra_root, encoding="utf-8")
    return folder


def test_card_numbers_and_tokens_in_caller_text_are_never_stored(tmp_path: Path) -> None:
    events: list[Event] = []
    with Engine(banking(tmp_path), store=tmp_path / "r.db", sweep_interval_s=None) as engine:
        engine.on("handoff_created", events.append)
        outcome = engine.handoff(f"my card {CARD} was stolen", sender="concierge",
                                 context={"note": f"session {JWT}"})
        record = engine.manager.store.get(outcome.record.record_id)
        assert record.request.task_description == f"my card {REDACTED} was stolen"
        assert record.request.context == {"note": f"session {REDACTED}"}
        engine.accept(record.record_id)
        engine.complete(record.record_id, {"summary": f"blocked {CARD}"})
        assert engine.manager.store.get(record.record_id).result == {
            "summary": f"blocked {REDACTED}"}
        assert CARD not in repr([event.data for event in events]) and len(events) == 1
    assert b"4111" not in (tmp_path / "r.db").read_bytes()


def test_a_config_can_keep_values_as_written(tmp_path: Path) -> None:
    folder = banking(tmp_path, "redact:\n  values: false\n")
    with Engine(folder, sweep_interval_s=None) as engine:
        outcome = engine.handoff(f"my card {CARD}", sender="concierge",
                                 context={"password": "x", "note": CARD})
        stored = engine.manager.store.get(outcome.record.record_id)
        assert stored.request.task_description == f"my card {CARD}"
        assert stored.request.context == {"password": REDACTED, "note": CARD}
    done = subprocess.run([sys.executable, "-m", "engine", "check", str(folder)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_records_written_without_redaction_are_hidden_when_shown(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    raw = HandoffManager(store=SQLiteStore(db), redactor=Redactor(defaults=False, values=False))
    record = raw.create_handoff(HandoffRequest(
        from_agent="a", to_agent="b", task_description=f"card {CARD}", context={}))
    raw.reject(record.record_id, f"caller read out {CARD}")
    assert raw.get(record.record_id).request.task_description == f"card {CARD}"  # as given
    raw.store.close()
    for action in (["export"], ["show", record.record_id], ["history", record.record_id]):
        shown = subprocess.run(
            [sys.executable, "-m", "engine", "records", *action, "--store", str(db)],
            capture_output=True, text=True, check=True,
        ).stdout
        assert "4111" not in shown and REDACTED in shown, shown
