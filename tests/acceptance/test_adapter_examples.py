"""The adapter examples run offline as real processes (scripted models, no API key) and show the
engine deciding every handoff: a refusal, the routed retry, the records."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lifecycle import HandoffStatus
from engine.stores import SQLiteStore
from tests.conftest import framework
from tests.patience import HANG_S

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
OFFLINE = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}


def run_example(name: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name / "run.py"), *args], env=OFFLINE,
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_openai_agents_example(tmp_path: Path) -> None:
    framework("agents", "openai-agents")
    out = run_example("openai_agents", "--db", str(tmp_path / "h.sqlite"))
    assert "== scripted model" in out
    assert "engine: concierge -> fraud_agent refused: invalid_payload" in out
    assert "engine: concierge -> fraud_agent routed by trigger" in out
    assert "[fraud_agent] Done: the card is frozen" in out
    assert "path: concierge -> fraud_agent" in out
    with SQLiteStore(tmp_path / "h.sqlite") as store:
        assert [r.status for r in store.query()] == [HandoffStatus.rejected,
                                                     HandoffStatus.pending]


@pytest.mark.slow
@pytest.mark.parametrize("style", ["supervisor", "swarm"])
def test_langgraph_example(style: str) -> None:
    framework("langgraph", "langgraph")
    out = run_example("langgraph", *(["--swarm"] if style == "swarm" else []))
    assert f"== {style} graph" in out
    assert "[coordinator] calls handoff_analyst(" in out
    assert "[writer] Brief: a 3M-unit market" in out
    hops = (["coordinator -> analyst", "analyst -> coordinator", "coordinator -> writer",
             "writer -> coordinator"] if style == "supervisor"
            else ["coordinator -> analyst", "analyst -> writer"])
    assert [line[len("handoff "):].split(":")[0] for line in out.splitlines()
            if line.startswith("handoff ")] == hops


@pytest.mark.slow
def test_livekit_example() -> None:
    framework("livekit.agents", "livekit")
    out = run_example("livekit")
    assert "engine: Handoff refused (invalid_payload" in out
    assert "engine: routed to fraud_agent" in out
    assert "[fraud_agent | en-US-AndrewNeural] You're through to the fraud team." in out
    assert "[concierge | en-US-AvaMultilingualNeural] Welcome back." in out
    assert "call path: concierge -> fraud_agent -> concierge" in out


@pytest.mark.parametrize("name", ["openai_agents", "langgraph", "livekit"])
def test_examples_stay_short(name: str) -> None:
    lines = (EXAMPLES / name / "run.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 100
