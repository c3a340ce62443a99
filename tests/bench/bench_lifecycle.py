"""Lifecycle cost: per-move time and memory per live record, in memory and in SQLite, each beside
a plain-dict transition table doing the same moves in the same run; in memory also beside seed
000's `HandoffManager` as its document publishes it (`seed000.py`: no history, no audit, no
versions; the system it replaces).

Run: python tests/bench/bench_lifecycle.py [--n 100000] [--sqlite-n 100000] [--full-n 2000]
Targets: in memory < 15 us per move and < 2 KB per live record; SQLite >= 5,000 durable moves/s.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.lifecycle import HandoffManager, HandoffRequest, MoveOrder, Trigger
from engine.stores import SQLiteStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
import seed000

DICT_TABLE = {
    ("pending", "accept"): "accepted",
    ("pending", "reject"): "rejected",
    ("accepted", "start"): "in_progress",
    ("accepted", "complete"): "completed",
    ("in_progress", "complete"): "completed",
    ("accepted", "fail"): "failed",
    ("in_progress", "fail"): "failed",
}
MOVES = ("accept", "start", "complete")


def requests(n: int) -> list[HandoffRequest]:
    return [
        HandoffRequest(from_agent="triage", to_agent="fraud", task_description=f"task {i}")
        for i in range(n)
    ]


class DictLifecycle:
    """The baseline: records as dicts, legality from a dict, history as tuples."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.count = 0

    def create(self, request: HandoffRequest) -> str:
        self.count += 1
        record_id = f"{self.count:032x}"
        now = datetime.now(timezone.utc)
        self.records[record_id] = {
            "record_id": record_id,
            "request": request,
            "status": "pending",
            "history": [(None, "pending", "create", now, "", "")],
            "version": 1,
            "updated_at": now,
        }
        return record_id

    def move(self, record_id: str, trigger: str) -> dict[str, Any]:
        record = self.records[record_id]
        dest = DICT_TABLE.get((record["status"], trigger))
        if dest is None:
            raise ValueError(f"cannot {trigger} in state {record['status']}")
        now = datetime.now(timezone.utc)
        record["history"].append((record["status"], dest, trigger, now, "", ""))
        record["status"] = dest
        record["version"] += 1
        record["updated_at"] = now
        return record


def timed(label: str, count: int, run: Callable[[], object], unit: str = "move") -> float:
    """Run once; print wall and CPU time per operation (CPU time is steadier on a busy host)."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"  {label:<46} {wall / count * 1e6:8.2f} us/{unit} (cpu {cpu / count * 1e6:6.2f})"
        f"  {count / wall:10,.0f} {unit}s/s"
    )
    return wall / count


def memory(label: str, n: int, build: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = build()
    per_record = (tracemalloc.get_traced_memory()[0] - before) / n
    tracemalloc.stop()
    del kept
    print(f"  {label:<44} {per_record:8.0f} bytes/record")
    return per_record


def bench_memory(n: int) -> None:
    print(f"\nIn memory, {n:,} handoffs: create, then accept + start + complete each")
    reqs = requests(n)
    manager, table = HandoffManager(), DictLifecycle()
    ids: list[str] = []
    keys: list[str] = []
    timed(
        "HandoffManager.create_handoff",
        n,
        lambda: ids.extend(manager.create_handoff(r).record_id for r in reqs),
        "create",
    )
    timed(
        "plain dict table create (baseline)",
        n,
        lambda: keys.extend(table.create(r) for r in reqs),
        "create",
    )
    engine = timed(
        "HandoffManager moves (MemoryStore)",
        3 * n,
        lambda: _moves(lambda i, t: manager.move(i, t), ids),
    )
    base = timed("plain dict table moves (baseline)", 3 * n, lambda: _moves(table.move, keys))
    seed = _seed_manager_moves(n)
    print(f"  ratio engine / dict per move: {engine / base:.1f}x, engine / seed 000: "
          f"{engine / seed:.1f}x  (target < 15 us/move)")

    print(f"\nMemory per live record, {n:,} records (tracemalloc; request built per record)")
    for label, stop in (("pending (created)", 0), ("in_progress (accept+start)", 2)):
        engine_b = memory(f"HandoffManager, {label}", n, lambda s=stop: _live_manager(n, s))
        base_b = memory(f"plain dict table, {label}", n, lambda s=stop: _live_dict(n, s))
        seed_b = memory(f"seed 000 HandoffManager, {label}", n, lambda s=stop: _live_seed(n, s))
        print(f"  ratio engine / dict: {engine_b / base_b:.1f}x, engine / seed 000: "
              f"{engine_b / seed_b:.1f}x  (target < 2048 bytes)")
    memory("  of which the caller's own HandoffRequest", n, lambda: requests(n))


def _seed_requests(n: int) -> list[seed000.HandoffRequest]:
    return [
        seed000.HandoffRequest(from_agent="triage", to_agent="fraud", task_description=f"task {i}")
        for i in range(n)
    ]


def _seed_move(manager: seed000.HandoffManager, record_id: str, trigger: str) -> object:
    if trigger == "complete":
        return manager.complete(record_id, {})
    return getattr(manager, trigger)(record_id)


def _seed_manager_moves(n: int) -> float:
    """Seed 000's manager: create, then the same moves; seconds per move."""
    manager, reqs = seed000.HandoffManager(), _seed_requests(n)
    ids: list[str] = []
    timed("seed 000 HandoffManager.create_handoff", n,
          lambda: ids.extend(manager.create_handoff(r).record_id for r in reqs), "create")
    return timed("seed 000 HandoffManager moves (as published)", 3 * n,
                 lambda: _moves(lambda i, t: _seed_move(manager, i, t), ids))


def _live_seed(n: int, moves: int) -> seed000.HandoffManager:
    manager = seed000.HandoffManager()
    for request in _seed_requests(n):
        record_id = manager.create_handoff(request).record_id
        for trigger in MOVES[:moves]:
            _seed_move(manager, record_id, trigger)
    return manager


def _moves(move: Callable[[str, str], object], ids: list[str]) -> None:
    for trigger in MOVES:
        for record_id in ids:
            move(record_id, trigger)


def _live_manager(n: int, moves: int) -> HandoffManager:
    manager = HandoffManager()
    for request in requests(n):
        record_id = manager.create_handoff(request).record_id
        for trigger in MOVES[:moves]:
            manager.move(record_id, trigger)
    return manager


def _live_dict(n: int, moves: int) -> DictLifecycle:
    table = DictLifecycle()
    for request in requests(n):
        record_id = table.create(request)
        for trigger in MOVES[:moves]:
            table.move(record_id, trigger)
    return table


def fsync_latency(folder: Path, rounds: int = 50) -> float:
    """This disk's fsync latency right now: the floor of a one-commit-per-move FULL store."""
    path = folder / "fsync.probe"
    with path.open("wb") as out:
        start = time.perf_counter()
        for _ in range(rounds):
            out.write(b"x" * 4096)
            out.flush()
            os.fsync(out.fileno())
    return (time.perf_counter() - start) / rounds


def bench_sqlite(n: int, folder: Path, *, synchronous: str, batch: int) -> None:
    """Each handoff runs create -> accept -> start -> complete before the next one starts
    (as a runtime drives them); creates and moves are timed apart."""
    how = "one commit per move" if batch == 1 else f"move_many, {batch} moves per commit"
    print(f"\nSQLite, {n:,} handoffs (synchronous={synchronous}, {how})")
    reqs = requests(n)
    store = SQLiteStore(folder / f"engine-{synchronous}-{batch}.db",
                        synchronous=synchronous)  # type: ignore[arg-type]
    manager = HandoffManager(store=store)
    if batch == 1:
        create_s, move_s = _per_handoff(manager, reqs)
    else:
        create_s, move_s = _per_window(manager, reqs, batch // 3)
    store.close()
    _report("HandoffManager.create_handoff (SQLiteStore)", n, create_s, "create")
    engine = _report(f"HandoffManager.{'move' if batch == 1 else 'move_many'} (SQLiteStore)",
                     3 * n, move_s, "move")
    conn, table, keys = _raw_setup(folder / f"raw-{synchronous}-{batch}.db", reqs, synchronous)
    base = timed("plain dict table + raw sqlite3 (baseline)", 3 * n,
                 lambda: _raw_moves(conn, table, keys, batch))
    print(f"  ratio engine / baseline per move: {engine / base:.1f}x"
          "  (target >= 5,000 durable moves/s)")


def _per_handoff(manager: HandoffManager, reqs: list[HandoffRequest]) -> tuple[
    tuple[float, float], tuple[float, float]
]:
    create = [0.0, 0.0]
    move = [0.0, 0.0]
    clocks = (time.perf_counter, time.process_time)
    for request in reqs:
        t0 = [clock() for clock in clocks]
        record_id = manager.create_handoff(request).record_id
        t1 = [clock() for clock in clocks]
        manager.accept(record_id)
        manager.start(record_id)
        manager.complete(record_id, {"ok": True})
        t2 = [clock() for clock in clocks]
        for k in (0, 1):
            create[k] += t1[k] - t0[k]
            move[k] += t2[k] - t1[k]
    return (create[0], create[1]), (move[0], move[1])


def _per_window(manager: HandoffManager, reqs: list[HandoffRequest], size: int) -> tuple[
    tuple[float, float], tuple[float, float]
]:
    create = [0.0, 0.0]
    move = [0.0, 0.0]
    clocks = (time.perf_counter, time.process_time)
    for first in range(0, len(reqs), size):
        t0 = [clock() for clock in clocks]
        ids = [manager.create_handoff(r).record_id for r in reqs[first : first + size]]
        t1 = [clock() for clock in clocks]
        manager.move_many([MoveOrder(i, Trigger(t)) for i in ids for t in MOVES])
        t2 = [clock() for clock in clocks]
        for k in (0, 1):
            create[k] += t1[k] - t0[k]
            move[k] += t2[k] - t1[k]
    return (create[0], create[1]), (move[0], move[1])


def _report(label: str, count: int, spent: tuple[float, float], unit: str) -> float:
    wall, cpu = spent
    print(
        f"  {label:<46} {wall / count * 1e6:8.2f} us/{unit} (cpu {cpu / count * 1e6:6.2f})"
        f"  {count / wall:10,.0f} {unit}s/s"
    )
    return wall / count


def bench_sqlite_threads(n: int, folder: Path, *, threads: int) -> None:
    print(
        f"\nSQLite, {n:,} handoffs (synchronous=FULL, {threads} threads, one call per move,"
        " group commit)"
    )
    path = folder / f"engine-threads-{threads}.db"
    with SQLiteStore(path, synchronous="NORMAL") as setup:
        creator = HandoffManager(store=setup)
        ids = [creator.create_handoff(r).record_id for r in requests(n)]
    store = SQLiteStore(path, synchronous="FULL")
    manager = HandoffManager(store=store)

    def drive(part: list[str]) -> None:
        _moves(lambda i, t: manager.move(i, t), part)

    def run() -> None:
        workers = [threading.Thread(target=drive, args=(ids[k::threads],)) for k in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    timed("HandoffManager moves, threads (SQLiteStore)", 3 * n, run)
    group = store._group
    print(
        f"  {group.jobs:,} writes in {group.commits:,} commits"
        f" ({group.jobs / max(group.commits, 1):.1f} per fsync)"
    )
    store.close()


def _move_batches(manager: HandoffManager, ids: list[str], batch: int) -> None:
    orders = [MoveOrder(record_id, Trigger(t)) for t in MOVES for record_id in ids]
    for first in range(0, len(orders), batch):
        manager.move_many(orders[first : first + batch])


def _raw_setup(
    path: Path, reqs: list[HandoffRequest], sync: str
) -> tuple[sqlite3.Connection, DictLifecycle, list[str]]:
    """The baseline's records, inserted in one transaction (not timed)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {sync}")
    conn.execute("CREATE TABLE r (id TEXT PRIMARY KEY, status TEXT, version INT, body TEXT)")
    table = DictLifecycle()
    ids = [table.create(request) for request in reqs]
    conn.execute("BEGIN")
    rows = [_raw_row(table.records[record_id]) for record_id in ids]
    conn.executemany("INSERT INTO r VALUES (?, ?, ?, ?)", rows)
    conn.execute("COMMIT")
    return conn, table, ids


def _raw_moves(conn: sqlite3.Connection, table: DictLifecycle, ids: list[str], batch: int) -> None:
    """The baseline moves: legality from a dict, the record's JSON rewritten per move, in the
    engine's order, with the same WAL mode, sync level and commit grouping."""
    pending: list[tuple[str, int, str, str]] = []
    for record_id in ids:
        for trigger in MOVES:
            row = _raw_row(table.move(record_id, trigger))
            pending.append((row[1], row[2], row[3], row[0]))
            if len(pending) >= batch:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    "UPDATE r SET status = ?, version = ?, body = ? WHERE id = ?", pending
                )
                conn.execute("COMMIT")
                pending.clear()
    conn.close()


def _raw_row(record: dict[str, Any]) -> tuple[str, str, int, str]:
    body = json.dumps(
        {
            **record,
            "request": record["request"].model_dump(mode="json"),
            "history": [[str(x) for x in move] for move in record["history"]],
            "updated_at": str(record["updated_at"]),
        }
    )
    return record["record_id"], record["status"], record["version"], body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000, help="handoffs in memory")
    parser.add_argument(
        "--sqlite-n",
        type=int,
        default=100_000,
        help="handoffs in SQLite (NORMAL per move, FULL batched)",
    )
    parser.add_argument(
        "--full-n",
        type=int,
        default=2_000,
        help="handoffs in SQLite with FULL sync and one fsync per move",
    )
    parser.add_argument(
        "--threads-n",
        type=int,
        default=20_000,
        help="handoffs in SQLite with FULL sync moved by 8 threads",
    )
    args = parser.parse_args()
    if args.n:
        bench_memory(args.n)
    with tempfile.TemporaryDirectory() as folder:
        latency = fsync_latency(Path(folder))
        print(
            f"\nfsync latency of this disk now: {latency * 1e6:,.0f} us"
            f" (a FULL commit per move cannot beat {1 / latency:,.0f} moves/s)"
        )
        if args.full_n:
            bench_sqlite(args.full_n, Path(folder), synchronous="FULL", batch=1)
        if args.sqlite_n:
            bench_sqlite(args.sqlite_n, Path(folder), synchronous="NORMAL", batch=1)
            bench_sqlite(args.sqlite_n, Path(folder), synchronous="FULL", batch=300)
        if args.threads_n:
            bench_sqlite_threads(args.threads_n, Path(folder), threads=8)


if __name__ == "__main__":
    main()
