"""Runtime replicas as real processes on one PostgreSQL store: racing writers (one SIGKILLed)
lose no acknowledged move and break no history, sweepers expire each record once, and a move
on one replica wakes a session waiting on another (the delivery latency is printed)."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.lifecycle.moves import history_problem
from engine.records.models import HandoffStatus
from engine.records.store import RecordQuery
from engine.stores import MemoryStore, open_store
from tests.patience import HANG_S, wait_until

RACER = """
import random, sys
from datetime import datetime
from engine.errors import IllegalTransition
from engine.lifecycle import HandoffManager
from engine.stores import open_store

url, name, id_file, seeded_at = sys.argv[1:5]
ids = open(id_file).read().split()
still = datetime.fromisoformat(seeded_at)  # time stands still: no record ever falls due
manager = HandoffManager(store=open_store(url), actor=name, retries=50, clock=lambda: still)
rng = random.Random(name)
manager.get(ids[0])  # connect before the start line
print("READY", flush=True)
sys.stdin.readline()
triggers = ["accept"] * 3 + ["cancel", "reject", "complete", "complete", "start", "fail"]
for record_id in ids:  # every racer walks the same order: all four meet on each record
    trigger = rng.choice(triggers)
    try:
        record = manager.move(record_id, trigger, reason=name, result={"by": name})
    except IllegalTransition:
        continue
    print("OK", record_id, trigger, record.version, flush=True)
print("DONE", flush=True)
"""

SWEEPER = """
import select, sys, time
from datetime import datetime, timedelta
from engine.lifecycle import HandoffManager
from engine.stores import open_store

url, name, started_at = sys.argv[1], sys.argv[2], datetime.fromisoformat(sys.argv[3])
go = [0.0]
clock = lambda: started_at + timedelta(seconds=time.monotonic() - go[0])
manager = HandoffManager(store=open_store(url), actor=name, pending_timeout_s=60, clock=clock)
manager.store.count()
print("READY", flush=True)
sys.stdin.readline()
go[0] = time.monotonic()  # the clock reads `started_at` now, and runs on from there
while not select.select([sys.stdin], [], [], 0)[0]:  # sweep until told to stop
    for record in manager.expire_overdue():
        print("EXPIRED", record.record_id, flush=True)
"""

WAITER = """
import sys, time
from engine.runtime.waiting import StatusWaiter
from engine.stores import open_store

url, id_file = sys.argv[1:3]
store = open_store(url)
waiter = StatusWaiter(store, poll_s=60, safety_poll_s=60)  # only a notification wakes it
waiter.wait(open(id_file).read().split()[0], ["pending"])  # subscribed and connected
print("READY", flush=True)
for record_id in open(id_file).read().split():
    record = waiter.wait(record_id, ["accepted"], timeout_s=float(sys.argv[3]))
    print("WOKE", record_id, record.status.value, time.monotonic(), flush=True)
"""


# When `seed_file` creates its records. The racers' clock reads this time and no other, so their
# moves never meet a pending timeout however long a loaded machine takes: the race is about
# writes, not expiry. (The sweepers' test is about expiry and gives them a clock of its own.)
SEEDED_AT = datetime(2026, 1, 1, tzinfo=timezone.utc)


def spawn(script: str, *args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def start_together(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:  # every one imported and connected before any moves
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line == "READY\n", process.communicate()[1]
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def seed(url: str, count: int, *, clock: Callable[[], datetime] | None = None) -> list[str]:
    """Create `count` pending records in memory (fast), then store them in one `put_many`."""
    memory = HandoffManager(store=MemoryStore(), **({"clock": clock} if clock else {}))
    ids = [
        memory.create_handoff(
            HandoffRequest(from_agent="caller", to_agent="desk", task_description=f"race {n}")
        ).record_id
        for n in range(count)
    ]
    with closing(open_store(url)) as store:
        store.put_many(memory.store.query())
    return ids


def seed_file(url: str, count: int, folder: Path) -> tuple[list[str], Path]:
    """`seed` at SEEDED_AT, with the ids also written to a file for the child processes."""
    ids = seed(url, count, clock=lambda: SEEDED_AT)
    id_file = folder / "ids.txt"
    id_file.write_text("\n".join(ids))
    return ids, id_file


def legal_history(record: HandoffRecord) -> bool:
    """One history entry per write, forming a legal path through the lifecycle table."""
    return len(record.history) == record.version and history_problem(record) is None


@pytest.mark.slow
def test_four_racing_replicas_one_killed_lose_no_acknowledged_move(
    postgres_url: str, tmp_path: Path
) -> None:
    _, id_file = seed_file(postgres_url, 2000, tmp_path)
    names = ["r0", "r1", "r2", "victim"]
    racers = [spawn(RACER, postgres_url, name, id_file, SEEDED_AT.isoformat()) for name in names]
    start_together(racers)
    victim = racers[-1]
    assert victim.stdout is not None
    acks: list[tuple[str, str, str, int]] = []
    for line in victim.stdout:  # let it win some races, then kill it mid-run
        _, record_id, trigger, version = line.split()
        acks.append(("victim", record_id, trigger, int(version)))
        if len(acks) >= 150:
            break
    os.kill(victim.pid, signal.SIGKILL)
    outputs = [racer.communicate(timeout=HANG_S) for racer in racers]
    assert victim.returncode == -signal.SIGKILL
    for name, racer, (out, err) in zip(names, racers, outputs, strict=True):
        assert name == "victim" or (racer.returncode == 0 and out.endswith("DONE\n")), err
        for line in out.splitlines():
            if line.startswith("OK"):  # lines the victim printed before it died count too
                _, record_id, trigger, version = line.split()
                acks.append((name, record_id, trigger, int(version)))
    with closing(open_store(postgres_url)) as store:
        records = {record.record_id: record for record in store.query()}
    assert len(records) == 2000 and all(legal_history(r) for r in records.values())
    for name, record_id, trigger, version in acks:  # every acknowledged move is kept as acked
        move = records[record_id].history[version - 1]
        assert (move.trigger, move.actor) == (trigger, name)
    assert len({(r, v) for _, r, _, v in acks}) == len(acks)  # one winner per race
    moves = Counter(m.actor for r in records.values() for m in r.history[1:])
    acked = Counter(name for name, *_ in acks)
    unacked = sorted(  # moves in the store that their (surviving) writer never acknowledged
        {(r.record_id, n, m.trigger, m.actor) for r in records.values()
         for n, m in enumerate(r.history[1:], start=2) if m.actor in names[:3]}
        - {(r, v, t, name) for name, r, t, v in acks}
    )
    assert all(moves[name] == acked[name] for name in names[:3]), (moves, acked, unacked[:10])
    assert 0 <= moves["victim"] - acked["victim"] <= 1  # at most the move it died acking
    finished = Counter(r.status.value for r in records.values())
    print(f"\n{len(acks)} acknowledged moves; final statuses {dict(finished)}")
    assert set(finished) >= {"completed", "failed", "rejected"}


@pytest.mark.slow
def test_sweepers_in_four_processes_expire_each_record_once(postgres_url: str) -> None:
    """The sweepers' clocks start at SEEDED_AT when they are told to go, however long they
    took to start; they sweep until every seeded record has expired, however long that takes."""
    start = SEEDED_AT - timedelta(seconds=60)  # HandoffManager's pending timeout in the sweepers
    falling_due = (start + timedelta(milliseconds=2 * n) for n in range(10**6))
    ids = seed(postgres_url, 800, clock=lambda: next(falling_due))  # one falls due every 2 ms
    fresh = seed(postgres_url, 1, clock=lambda: SEEDED_AT + timedelta(days=1))  # never due
    sweepers = [spawn(SWEEPER, postgres_url, f"s{n}", SEEDED_AT.isoformat()) for n in range(4)]
    start_together(sweepers)
    failed = RecordQuery(status=HandoffStatus.failed)
    with closing(open_store(postgres_url)) as store:
        wait_until(lambda: store.count(failed) >= len(ids), "every seeded record to expire")
    for sweeper in sweepers:
        assert sweeper.stdin is not None
        sweeper.stdin.write("stop\n")
        sweeper.stdin.flush()
    outputs = [sweeper.communicate(timeout=HANG_S) for sweeper in sweepers]
    expired: list[str] = []
    per_sweeper = []
    for sweeper, (out, err) in zip(sweepers, outputs, strict=True):
        assert sweeper.returncode == 0, err
        mine = [line.split()[1] for line in out.splitlines()]
        per_sweeper.append(len(mine))
        expired += mine
    assert len(expired) == len(set(expired))  # no record expired twice
    with closing(open_store(postgres_url)) as store:
        records = {record.record_id: record for record in store.query()}
    assert set(expired) >= set(ids)
    for record_id in expired:
        assert [m.trigger for m in records[record_id].history].count("expire") == 1
    assert records[fresh[0]].status.value == "pending"
    print(f"\nexpired per sweeper: {per_sweeper}")
    assert sum(1 for count in per_sweeper if count) >= 2  # they really shared the work


@pytest.mark.slow
def test_a_session_waiting_on_one_replica_wakes_when_another_accepts(
    postgres_url: str, tmp_path: Path
) -> None:
    ids, id_file = seed_file(postgres_url, 40, tmp_path)
    waiter = spawn(WAITER, postgres_url, id_file, HANG_S)
    start_together([waiter])
    sent: dict[str, float] = {}
    with closing(open_store(postgres_url)) as store:
        accepter = HandoffManager(store=store, actor="other-replica", clock=lambda: SEEDED_AT)
        for record_id in ids:
            time.sleep(0.02)
            sent[record_id] = time.monotonic()
            accepter.accept(record_id)
    out, err = waiter.communicate(timeout=HANG_S)
    assert waiter.returncode == 0, err
    woke = [line.split() for line in out.splitlines() if line.startswith("WOKE")]
    assert [(rid, status) for _, rid, status, _ in woke] == [(rid, "accepted") for rid in ids]
    latency_ms = sorted((float(at) - sent[rid]) * 1000 for _, rid, _, at in woke)
    p90 = latency_ms[int(0.9 * len(latency_ms))]
    print(
        f"\ncross-replica wake-up after accept() started, {len(latency_ms)} handoffs: p50"
        f" {statistics.median(latency_ms):.2f} ms, p90 {p90:.2f} ms, max {latency_ms[-1]:.2f} ms"
    )
