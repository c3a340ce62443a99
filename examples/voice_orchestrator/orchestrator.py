"""The simulated voice loop: caller turns in, handoffs through `engine.Engine`, transcript out.

Owns presentation and the fake "model" only; every routing, policy and lifecycle decision is
the engine's. Imports nothing but the public `engine` API.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import Engine, Event, HandoffOutcome, HandoffRecord, Session, handoff_tools
from examples.voice_orchestrator.script import SCRIPTS, Script, Turn

REPO = Path(__file__).resolve().parents[2]


class Call:
    """One phone call: a session on the engine, and the transcript it prints."""

    def __init__(self, engine: Engine, script: Script) -> None:
        self.engine = engine
        self.script = script
        self.session: Session = engine.session(session_id="call-0001",
                                               system_vars=dict(script.system_vars))
        self.events: Counter[str] = Counter()
        engine.on("handoff_created", self._count)
        engine.on("handoff_moved", self._count)

    def _count(self, event: Event) -> None:
        self.events[event.name] += 1

    def say(self, agent: str, text: str) -> None:
        voice = self.engine.snapshot.agents[agent].metadata.get("voice", {}).get("name")
        print(f"[{agent} | {voice}] {text}" if voice else f"[{agent}] {text}")

    def run(self) -> None:
        entry = self.session.active_agent
        self.say(entry, str(self.engine.snapshot.agents[entry].metadata.get("greeting", "Hello.")))
        for turn in self.script.turns:
            print(f"caller: {turn.caller}")
            outcome = self._react(turn)
            if outcome is None:
                self.say(self.session.active_agent, turn.reply)
            elif outcome.target is None:
                self._refused(outcome)
                self.say(self.session.active_agent, turn.reply)
            else:
                self._take_over(outcome, turn)

    def _react(self, turn: Turn) -> HandoffOutcome | None:
        agent = self.session.active_agent
        context = {**self.script.context,
                   **{k: v for k, v in turn.args.items() if k != "reason"}}
        if turn.tool is not None:
            offered = [tool.name for tool in handoff_tools(self.engine.snapshot, agent)]
            note = "" if turn.tool in offered else " (not among the tools it was offered)"
            print(f"  {agent}'s model calls {turn.tool}({json.dumps(turn.args)}){note}")
            return self.engine.handoff(turn.caller, session=self.session, tool=turn.tool,
                                       context=context, tool_args=turn.args)
        if turn.route_text:
            print(f"  {agent} asks the engine to route the request")
            return self.engine.handoff(turn.caller, session=self.session, context=context)
        return None

    def _refused(self, outcome: HandoffOutcome) -> None:
        decision, record = outcome.decision, outcome.record
        reason = decision.rejection.value if decision.rejection else "no_route"
        print(f"  refused by policy [{reason}]: {decision.detail}")
        print(f"  audited as record {record.record_id[:8]} ({record.status.value})")

    def _take_over(self, outcome: HandoffOutcome, turn: Turn) -> None:
        decision, record, target = outcome.decision, outcome.record, outcome.target
        assert target is not None
        how = decision.layer.value if decision.layer else "?"
        rule = f" {decision.rule}" if decision.rule else ""
        print(f"  handoff {decision.request.sender} -> {target} by {how}{rule}"
              f" [record {record.record_id[:8]}, config {record.config_version}]")
        print(f"  context passed on: {json.dumps(outcome.system_vars.get('handoff_context', {}))}")
        self.engine.accept(record.record_id, actor=target)
        self.engine.start(record.record_id, actor=target)
        metadata = self.engine.snapshot.agents[target].metadata
        returning = len(self.session.path) > 2 and self.session.path[-3] == target
        greeting = metadata.get("return_greeting") if returning else None
        self.say(target, str(greeting or outcome.system_vars.get("greeting", "Hello.")))
        if turn.work:
            print(f"  ({target} works: {turn.work})")
        self.engine.complete(record.record_id, {"work": turn.work or "conversation"},
                             actor=target)


def audit(records: Sequence[HandoffRecord], store: Path) -> None:
    print(f"\n== audit trail: {len(records)} handoff record(s) in {store} ==")
    for number, record in enumerate(records, 1):
        request = record.request
        moves = " > ".join(f"{move.to.value} by {move.actor or '-'}" for move in record.history)
        print(f"{number}. {request.from_agent} -> {request.to_agent or '?'}: "
              f"{record.status.value} (config {record.config_version}) [{moves}]")
        if record.response is not None and not record.response.accepted:
            print(f"   reason: {record.response.reason}")


def _arguments(argv: Sequence[str] | None) -> Any:
    parser = argparse.ArgumentParser(prog="python -m examples.voice_orchestrator",
                                     description=__doc__)
    parser.add_argument("--db", type=Path, help="SQLite file for the records "
                        "(default: a new temporary file)")
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "banking",
                        help="config set to run on (default: configs/banking)")
    return parser.parse_args(argv)


def _call(config: Path, store: Path) -> int:
    with Engine(config, store=store) as engine:
        snapshot = engine.snapshot
        script = SCRIPTS.get(snapshot.config.engine.name)
        if script is None:
            known = ", ".join(SCRIPTS)
            print(f"no scripted call for the config set {snapshot.config.engine.name!r} "
                  f"(scripted: {known})", file=sys.stderr)
            return 2
        print(f"== call-0001 on {snapshot.config.engine.name} (config {snapshot.version}) ==")
        call = Call(engine, script)
        call.run()
        print(f"\ncall path: {' -> '.join(call.session.path)}")
        print(f"events: {call.events['handoff_created']} handoffs created, "
              f"{call.events['handoff_moved']} lifecycle moves")
        audit(engine.manager.list_records(), store)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    if args.db is not None:
        return _call(args.config, args.db)
    with tempfile.TemporaryDirectory(prefix="voice-orchestrator-") as folder:
        code = _call(args.config, Path(folder) / "handoffs.sqlite")
    if code == 0:
        print("(the records were in a temporary file, now removed: pass --db FILE to keep them)")
    return code
