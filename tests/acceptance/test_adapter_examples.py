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
        records = store.query()
        assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.completed]
        assert [m.to.value for m in records[1].history] == [
            "pending", "accepted", "in_progress", "completed"]


@pytest.mark.slow
@pytest.mark.parametrize("style", ["supervisor", "swarm"])
def test_langgraph_example(style: str) -> None:
    framework("langgraph", "langgraph")
    out = run_example("langgraph", *(["--swarm"] if style == "swarm" else []))
    assert f"== {style} graph" in out
    assert "[coordinator] calls handoff_analyst(" in out
    assert "[writer] Brief: a 3M-unit market" in out
    assert "user: Please write the brief now." in out  # the engine's router takes this turn
    assert "[writer] calls" not in out and "[coordinator] calls handoff_writer" not in out
    hops = (["coordinator -> analyst", "analyst -> coordinator", "coordinator -> writer",
             "writer -> coordinator"] if style == "supervisor"
            else ["coordinator -> analyst", "analyst -> writer"])
    records = [line[len("handoff "):].split(": ") for line in out.splitlines()
               if line.startswith("handoff ")]
    assert records == [[hop, "completed"] for hop in hops]  # every record ends completed


@pytest.mark.slow
def test_livekit_example() -> None:
    framework("livekit.agents", "livekit")
    out = run_example("livekit")
    assert "engine: refused, invalid_payload" in out
    assert "handoff_fraud_agent({" in out and '"last four"}) refused' in out
    assert "engine: routed to fraud_agent by suspected-fraud" in out  # the caller's words
    assert "[fraud_agent | en-US-AndrewNeural] You're through to the fraud team." in out
    assert "engine: routed to concierge by trigger" in out  # the model's tool
    assert "[concierge | en-US-AvaMultilingualNeural] Welcome back." in out
    assert "call path: concierge -> fraud_agent -> concierge" in out
    assert [line for line in out.splitlines() if line.startswith("handoff ")] == [
        "handoff concierge -> fraud_agent: rejected",
        "handoff concierge -> fraud_agent: completed",
        "handoff fraud_agent -> concierge: completed",
    ]


def test_the_livekit_page_shows_the_example_app() -> None:
    page = (EXAMPLES.parent / "docs" / "integrations" / "livekit.md").read_text(encoding="utf-8")
    section = page.split("## The example app", 1)[1].split("\n## ", 1)[0]
    shown = [block.split("\n", 1)[1] for block in section.split("```python")[1:]]
    code = (EXAMPLES / "livekit" / "run.py").read_text(encoding="utf-8")
    assert len(shown) == 2 and all(block.split("```")[0] in code for block in shown)


@pytest.mark.slow
def test_pipecat_example(tmp_path: Path) -> None:
    framework("pipecat.flows", "pipecat")
    out = run_example("pipecat", "--db", str(tmp_path / "h.sqlite"))
    assert "  engine: fraud_agent refused: invalid_payload: payload from 'concierge'" in out
    assert "caller: I think my card was stolen.\n  engine: fraud_agent routed\n" in out
    assert "[fraud_agent] I've frozen the card ending 4421" in out
    assert "call path: concierge -> fraud_agent -> concierge" in out
    with SQLiteStore(tmp_path / "h.sqlite") as store:
        records = store.query()
    assert [r.status for r in records] == [HandoffStatus.rejected, HandoffStatus.completed,
                                           HandoffStatus.completed]
    assert [r.request.to_agent for r in records] == ["fraud_agent", "fraud_agent", "concierge"]


@pytest.mark.parametrize("name", ["openai_agents", "langgraph", "livekit", "pipecat"])
def test_examples_stay_short(name: str) -> None:
    lines = (EXAMPLES / name / "run.py").read_text(encoding="utf-8").splitlines()
    assert len(lines) < 100


def test_the_openai_agents_page_shows_the_example_app() -> None:
    page = (EXAMPLES.parent / "docs" / "integrations" / "openai-agents.md").read_text("utf-8")
    app = page.split("```python\n", 1)[1].split("```", 1)[0]
    assert app.startswith("async def main(") and app in (
        EXAMPLES / "openai_agents" / "run.py").read_text("utf-8")


def test_the_pipecat_page_shows_the_example_app() -> None:
    page = (EXAMPLES.parent / "docs" / "integrations" / "pipecat.md").read_text("utf-8")
    app = page.split("```python\n", 1)[1].split("```", 1)[0]
    assert app.startswith("async def main(") and app in (
        EXAMPLES / "pipecat" / "run.py").read_text("utf-8")


def test_the_langgraph_page_shows_the_example_app() -> None:
    page = (EXAMPLES.parent / "docs" / "integrations" / "langgraph.md").read_text("utf-8")
    app = (EXAMPLES / "langgraph" / "run.py").read_text(encoding="utf-8")
    assert f"```python\n{app}```" in page
