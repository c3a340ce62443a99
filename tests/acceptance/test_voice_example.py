"""The voice orchestrator example runs as the README and docs/embedding.md show it, and leaves
an audit in SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lifecycle import HandoffStatus
from engine.stores import SQLiteStore
from tests.patience import HANG_S

REPO = Path(__file__).resolve().parents[2]


def run_example(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "examples.voice_orchestrator", *args], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )


@pytest.mark.slow
def test_transcript_and_sqlite_audit(tmp_path: Path) -> None:
    db = tmp_path / "call.sqlite"
    done = run_example("--db", str(db))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # greetings come from agent metadata, spoken with each agent's voice
    assert "[concierge | en-US-AvaMultilingualNeural] Thanks for calling Contoso Bank" in out
    assert "[fraud_agent | en-US-AndrewNeural] You're through to the fraud team." in out
    assert "handoff concierge -> fraud_agent by trigger" in out
    # the refusal is policy's, typed, and audited
    assert "refused by policy [not_allowed]: 'card_recommendation' is not among the peers" in out
    # the return to the concierge uses its return greeting; then a rule routes the text
    assert "[concierge | en-US-AvaMultilingualNeural] Welcome back." in out
    assert "handoff concierge -> card_recommendation by rule card-shopping" in out
    assert "call path: concierge -> fraud_agent -> concierge -> card_recommendation" in out
    assert "events: 4 handoffs created, 9 lifecycle moves" in out
    assert f"4 handoff record(s) in {db}" in out

    store = SQLiteStore(db)
    try:
        records = store.query()
    finally:
        store.close()
    moves = [(r.request.from_agent, r.request.to_agent, r.status) for r in records]
    assert moves == [
        ("concierge", "fraud_agent", HandoffStatus.completed),
        ("fraud_agent", "card_recommendation", HandoffStatus.rejected),
        ("fraud_agent", "concierge", HandoffStatus.completed),
        ("concierge", "card_recommendation", HandoffStatus.completed),
    ]
    assert len({r.config_version for r in records}) == 1 and records[0].config_version
    assert records[1].response is not None and records[1].response.reason.startswith(
        "not_allowed"
    )


@pytest.mark.slow
def test_runs_with_no_arguments_and_leaves_nothing_behind(tmp_path: Path) -> None:
    done = run_example(env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert f"in {tmp_path}" in done.stdout  # the audit trail names the temporary file
    assert "pass --db FILE to keep them" in done.stdout
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_runs_on_the_research_set_too(tmp_path: Path) -> None:
    done = run_example("--config", "configs/research", "--db", str(tmp_path / "r.sqlite"))
    assert done.returncode == 0, done.stderr
    assert "[coordinator] Hello." in done.stdout  # no greeting in its metadata: a default
    assert "refused by policy [not_allowed]: 'analyst' is not among the peers of 'writer'" \
        in done.stdout
    assert "call path: coordinator -> analyst -> writer -> coordinator" in done.stdout


@pytest.mark.slow
def test_a_set_without_a_scripted_call_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "desk"
    subprocess.run([sys.executable, "-m", "engine", "init", str(folder), "--schemas",
                    str(tmp_path / "schemas"), "-q"], check=True, timeout=HANG_S)
    done = run_example("--config", str(folder))
    assert done.returncode == 2
    assert "no scripted call for the config set 'desk'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_short_ids_it_prints_open_the_records(tmp_path: Path) -> None:
    db = tmp_path / "call.sqlite"
    done = run_example("--db", str(db))
    short = done.stdout.split("audited as record ")[1].split()[0]
    assert len(short) == 8
    shown = subprocess.run([sys.executable, "-m", "engine", "records", "show", short, "--store",
                            str(db), "--format", "json"], capture_output=True, text=True,
                           timeout=HANG_S, check=False)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count(short) >= 1 and '"status": "rejected"' in shown.stdout
