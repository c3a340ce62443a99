"""The observer seam without any telemetry library: what the engine, its manager, reloads and the
pump report, in which order, redacted; a failing observer never breaks a handoff; nothing
optional is imported unless asked for, and asking without the extra names the extra."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Engine, MissingExtra, UsageError
from engine.issues import Issue
from engine.observability import (
    HandoffFacts,
    ObservedEngine,
    ObservedEnvelope,
    ObservedListener,
    ObservedOutcome,
    Observer,
    Observers,
    ReloadFacts,
)
from engine.observer.facts import redacted_issue
from engine.records.models import HandoffRecord
from engine.redaction import REDACTED, Redactor
from engine.stores import MemoryStore
from tests.patience import HANG_S
from tests.unit.observability.scenarios import (
    bounce,
    refused,
    reject_reload,
    routed,
    run_chain,
)


class Recorder(Observer):
    """Records every call; `message_sent` carries the name of the span-like scope it is in."""

    def __init__(self, name: str = "recorder", *, outermost: bool = False) -> None:
        self.name = name
        self.outermost = outermost  # type: ignore[misc]
        self.calls: list[tuple[Any, ...]] = []
        self.scope: list[str] = []

    def attach(self, engine: ObservedEngine) -> None:
        self.calls.append(("attach",))

    def handoff_started(self) -> Any:
        self.calls.append(("handoff_started",))
        return "h"

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        self.calls.append(("handoff_finished", token, facts))

    def record_moved(self, record: HandoffRecord) -> None:
        move = record.history[-1]
        self.calls.append(("moved", move.from_ and move.from_.value, move.to.value))

    def reload_started(self, facts: ReloadFacts) -> Any:
        self.calls.append(("reload_started", facts))
        return "r"

    def reload_finished(self, token: Any, facts: ReloadFacts) -> None:
        self.calls.append(("reload_finished", token))

    def message_sent(self) -> dict[str, str]:
        return {"from": self.scope[-1] if self.scope else "outside"}

    def message_started(self, listener: ObservedListener, env: ObservedEnvelope) -> Any:
        self.calls.append(("message", listener.name, dict(env.trace or {})))
        self.scope.append(listener.name)
        return listener.name

    def message_finished(self, token: Any, outcome: ObservedOutcome | None) -> None:
        assert self.scope.pop() == token
        self.calls.append(("message_done", token, outcome is not None))


def facts_of(recorder: Recorder) -> list[HandoffFacts]:
    return [call[2] for call in recorder.calls if call[0] == "handoff_finished"]


def test_a_routed_handoff_is_reported_once_with_its_facts(engine: Engine) -> None:
    recorder = Recorder()
    engine.observe(recorder)
    outcome = routed(engine)
    assert recorder.calls[:2] == [("attach",), ("handoff_started",)]
    assert facts_of(recorder) == [HandoffFacts(
        sender="concierge", outcome="routed", duration_s=facts_of(recorder)[0].duration_s,
        target="fraud_agent", layer="rule", rule="lost-or-stolen-card", session_id="call-1",
        record_id=outcome.record.record_id, config_version=engine.version, keywords=1,
    )]
    assert 0 < facts_of(recorder)[0].duration_s < 5
    assert recorder.calls[2][1] == "h"  # its own token came back
    assert "4111" not in repr(recorder.calls)  # the caller's context never reaches observers


def test_a_loop_refusal_reports_the_reason_and_the_rejected_move(engine: Engine) -> None:
    session, _ = bounce(engine)
    recorder = Recorder()
    engine.observe(recorder)
    outcome = refused(engine, session)
    assert recorder.calls[1:] == [
        ("handoff_started",),
        ("moved", "pending", "rejected"),
        ("handoff_finished", "h", HandoffFacts(
            sender="fraud_agent", outcome="refused",
            duration_s=facts_of(recorder)[0].duration_s, target="concierge", layer="trigger",
            reason="loop", refusal=outcome.record.response.reason,  # type: ignore[union-attr]
            tool="handoff_concierge", session_id="call-2", record_id=outcome.record.record_id,
            config_version=engine.version,
        )),
    ]


def test_a_handoff_that_raises_is_reported_as_an_error_then_raises(folder: Path) -> None:
    class Broken(MemoryStore):
        def add(self, record: HandoffRecord) -> None:
            raise OSError("disk full")

    with Engine(folder, store=Broken(), sweep_interval_s=None) as broken:
        recorder = Recorder()
        broken.observe(recorder)
        with pytest.raises(OSError, match="disk full"):
            broken.handoff("hi", sender="concierge", tool="handoff_fraud_agent")
    (facts,) = facts_of(recorder)
    assert (facts.outcome, facts.error, facts.sender, facts.tool) == (
        "error", "OSError", "concierge", "handoff_fraud_agent")


def test_lifecycle_moves_and_expiry_reach_the_observer(engine: Engine) -> None:
    recorder = Recorder()
    engine.observe(recorder)
    record_id = routed(engine).record.record_id
    engine.accept(record_id)
    engine.start(record_id)
    engine.complete(record_id, {"case": "F-1"})
    late = engine.handoff("hi", sender="concierge", tool="handoff_fraud_agent")
    engine.manager.expire_overdue(now=late.record.created_at.replace(year=2100))
    moves = [call[1:] for call in recorder.calls if call[0] == "moved"]
    assert moves == [("pending", "accepted"), ("accepted", "in_progress"),
                     ("in_progress", "completed"), ("pending", "failed")]


def test_a_rejected_reload_is_reported_with_redacted_issues(folder: Path, engine: Engine) -> None:
    recorder = Recorder()
    engine.observe(recorder)
    result = reject_reload(folder, engine)
    started = [call[1] for call in recorder.calls if call[0] == "reload_started"]
    assert started == [ReloadFacts(
        outcome="rejected", config="banking-concierge", version=engine.version,
        previous_version=engine.version, duration_s=result.duration_s,
        issue_count=len(result.issues), issues=started[0].issues,
    )]
    (issue,) = started[0].issues
    assert issue["json_path"].endswith(".priority") and issue["message"] == REDACTED
    assert "high" in result.issues[0].message  # the engine's own result keeps it
    assert recorder.calls[-1] == ("reload_finished", "r")


def test_an_issue_under_a_secret_key_is_redacted_and_others_are_not() -> None:
    def issue(path: str) -> Issue:
        return Issue("a.yaml", 3, 5, path, "type", "'sk-123' is not of type 'integer'")

    redactor = Redactor()
    assert redacted_issue(issue("$.metadata.api_key"), redactor)["message"] == REDACTED
    assert redacted_issue(issue("$['x y'].client_secret[0]"), redactor)["message"] == REDACTED
    assert redacted_issue(issue("$.rules[2].to"), redactor)["message"].startswith("'sk-123'")


def test_observers_start_outermost_first_and_finish_in_reverse(engine: Engine) -> None:
    inner, outer = Recorder("inner"), Recorder("outer", outermost=True)
    order: list[str] = []
    for recorder in (inner, outer):
        recorder.handoff_started = (  # type: ignore[method-assign]
            lambda name=recorder.name: order.append(f"start {name}"))
        recorder.handoff_finished = (  # type: ignore[method-assign]
            lambda token, facts, name=recorder.name: order.append(f"finish {name}"))
    engine.observe(inner)
    engine.observe(outer)
    routed(engine)
    assert order == ["start outer", "start inner", "finish inner", "finish outer"]
    assert isinstance(engine.observer, Observers) and engine.observer.members == (outer, inner)


def test_a_failing_observer_is_logged_and_never_breaks_the_engine(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    class Failing(Observer):
        def handoff_started(self) -> Any:
            raise RuntimeError("exporter down")

        def record_moved(self, record: HandoffRecord) -> None:
            raise RuntimeError("exporter down")

    recorder = Recorder()
    engine.observe(Failing())
    engine.observe(recorder)
    outcome = routed(engine)
    engine.accept(outcome.record.record_id)
    assert engine.manager.get(outcome.record.record_id).status.value == "accepted"
    assert [f.record_id for f in facts_of(recorder)] == [outcome.record.record_id]
    assert sum("exporter down" in r.getMessage() or r.exc_info is not None
               for r in caplog.records) == 2


def test_pump_messages_carry_the_context_they_were_sent_from(engine: Engine) -> None:
    recorder = Recorder()
    engine.observe(recorder)
    pump = asyncio.run(run_chain(engine))
    messages = [call[1:] for call in recorder.calls if call[0] == "message"]
    assert messages == [
        ("desk", {"from": "outside"}), ("triage", {"from": "desk"}),
        ("specialist", {"from": "triage"}), ("triage", {"from": "specialist"}),
        ("desk", {"from": "triage"}),
    ]
    assert [call[2] for call in recorder.calls if call[0] == "message_done"] == [True] * 5
    moves = [call[1:] for call in recorder.calls if call[0] == "moved"]
    assert sorted(moves) == sorted([("pending", "accepted"), ("accepted", "in_progress")] * 2
                                   + [("in_progress", "completed")] * 2)
    assert pump.queue_depths() == {"desk": 0, "triage": 0, "specialist": 0}


@pytest.mark.slow
def test_metrics_without_the_extra_names_it() -> None:
    done = _blocked("prometheus_client", "from engine import Engine\n"
                    "Engine('configs/banking', sweep_interval_s=None).metrics()")
    assert "engine.errors.MissingExtra" in done.stderr
    assert "pip install 'handoff-engine[prometheus]'" in done.stderr


def test_the_otel_observer_without_the_extra_names_it() -> None:
    done = _blocked("opentelemetry", "import engine.observability.otel")
    assert "engine.errors.MissingExtra" in done.stderr and "handoff-engine[otel]" in done.stderr
    assert issubclass(MissingExtra, UsageError)


@pytest.mark.slow
def test_nothing_optional_is_imported_unless_asked_for() -> None:
    script = (
        "import sys\n"
        "from engine import Engine\n"
        "from engine.pump import Pump\n"
        "import engine.observability\n"
        "with Engine('configs/banking', sweep_interval_s=None) as e:\n"
        "    e.handoff('my card was stolen', sender='concierge')\n"
        "    e.observe(engine.observability.JsonLogObserver())\n"
        "    e.handoff('my card was stolen', sender='concierge')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('opentelemetry', 'prometheus_client')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=_repo())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


BLOCK = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {name!r} or name.startswith({name!r} + '.'):
            raise ModuleNotFoundError(f'No module named {{name!r}}', name=name)
sys.meta_path.insert(0, Block())
"""


def _blocked(module: str, code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter where `module` cannot be imported (not installed)."""
    return subprocess.run([sys.executable, "-c", BLOCK.format(name=module) + code],
                          capture_output=True, text=True, cwd=_repo())


def _repo() -> Path:
    return Path(__file__).resolve().parents[3]


def test_an_observer_given_to_a_pump_that_raises_never_stops_its_workers() -> None:
    from engine.pump import Pump
    from tests.unit.observability.scenarios import Answer, Ask, chain

    class Failing(Observer):
        def message_started(self, listener: ObservedListener, env: ObservedEnvelope) -> Any:
            raise RuntimeError("exporter down")

    async def main() -> Any:
        async with Pump(chain(), observer=Failing()) as pump:
            return await pump.request("desk", Ask(text="hi"), timeout=HANG_S)

    assert asyncio.run(main()) == Answer(text="HI")
