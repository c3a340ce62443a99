"""Durability and concurrency of the SQLite store with real processes: a writer killed with
SIGKILL loses no acknowledged move, and two writers on one file never break the lifecycle."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.lifecycle.table import CREATE, destination
from engine.lifecycle.table import Trigger as T
from engine.stores import SQLiteStore
from tests.patience import HANG_S

CREATED_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)  # when the racers' records are created

WRITER = """
import sys
from engine.lifecycle import HandoffManager, HandoffRequest
from engine.stores import SQLiteStore

manager = HandoffManager(store=SQLiteStore(sys.argv[1]), actor="writer")
request = HandoffRequest(from_agent="a", to_agent="b", task_description="crash me")
while True:
    record = manager.create_handoff(request)
    print("ACK", record.record_id, record.version, flush=True)
    for move in (manager.accept, manager.start):
        record = move(record.record_id)
        print("ACK", record.record_id, record.version, flush=True)
    record = manager.complete(record.record_id, {"n": record.version})
    print("ACK", record.record_id, record.version, flush=True)
"""

RACER = """
import random, sys
from datetime import datetime
from engine.errors import IllegalTransition
from engine.lifecycle import HandoffManager
from engine.stores import SQLiteStore

name, still, ids = sys.argv[2], datetime.fromisoformat(sys.argv[3]), sys.argv[4:]
# Time stands still at the records' creation: no move meets a pending timeout, however slowly a
# busy machine runs the race.
manager = HandoffManager(store=SQLiteStore(sys.argv[1]), actor=name, retries=50,
                         clock=lambda: still)
rng = random.Random(name)
manager.list_records()  # warm the connections before the start line
print("READY", flush=True)
sys.stdin.readline()  # start together: both processes are imported and connected
triggers = ["accept"] * 4 + ["start"] * 4 + ["complete", "fail", "reject", "cancel"]
for _ in range(10):
    for record_id in rng.sample(ids, len(ids)):
        trigger = rng.choice(triggers)
        try:
            record = manager.move(record_id, trigger, reason=name, result={"by": name})
        except IllegalTransition:
            continue
        print("OK", record_id, trigger, record.version, flush=True)
"""


def _legal_history(record: HandoffRecord) -> bool:
    first, *rest = record.history
    if (first.from_, first.trigger) != (None, CREATE) or len(record.history) != record.version:
        return False
    previous = first.to
    for move in rest:
        if move.from_ != previous or destination(move.from_, T(move.trigger)) != move.to:
            return False
        previous = move.to
    return previous == record.status


@pytest.mark.slow
def test_sigkill_loses_no_acknowledged_move(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    SQLiteStore(path).close()  # schema first, so the child starts moving at once
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    acked: dict[str, int] = {}
    for line in child.stdout:
        _, record_id, version = line.split()
        acked[record_id] = int(version)
        if len(acked) >= 60:
            break
    os.kill(child.pid, signal.SIGKILL)
    rest, _ = child.communicate(timeout=HANG_S)
    for line in rest.splitlines():  # printed before the kill but not read yet
        _, record_id, version = line.split()
        acked[record_id] = int(version)
    assert child.returncode == -signal.SIGKILL
    with SQLiteStore(path) as store:
        stored = {record.record_id: record for record in store.query()}
    assert set(acked) <= set(stored)
    for record_id, version in acked.items():
        assert stored[record_id].version >= version
        assert _legal_history(stored[record_id])


@pytest.mark.slow
def test_two_processes_moving_the_same_records(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    manager = HandoffManager(store=SQLiteStore(path), clock=lambda: CREATED_AT)
    request = HandoffRequest(from_agent="a", to_agent="b", task_description="contested")
    ids = [manager.create_handoff(request).record_id for _ in range(40)]
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(path), name, CREATED_AT.isoformat(), *ids],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for name in ("left", "right")
    ]
    for racer in racers:  # both imported and connected before either moves
        assert racer.stdout is not None and racer.stdout.readline() == "READY\n"
    for racer in racers:
        assert racer.stdin is not None
        racer.stdin.write("go\n")
        racer.stdin.flush()
    outputs = [racer.communicate(timeout=HANG_S) for racer in racers]
    for racer, (_, err) in zip(racers, outputs, strict=True):
        assert racer.returncode == 0, err
    records = {record_id: manager.get(record_id) for record_id in ids}
    acks = 0
    for name, (out, _) in zip(("left", "right"), outputs, strict=True):
        for line in out.splitlines():
            _, record_id, trigger, version = line.split()
            move = records[record_id].history[int(version) - 1]  # the acknowledged move is kept
            assert (move.trigger, move.actor) == (trigger, name)
            acks += 1
    assert all(_legal_history(record) for record in records.values())
    assert acks == sum(record.version - 1 for record in records.values())  # no lost move
    assert {move.actor for r in records.values() for move in r.history[1:]} == {"left", "right"}
