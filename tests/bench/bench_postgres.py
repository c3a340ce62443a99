"""Durable moves/s with 1, 2 and 4 writer processes on PostgreSQL (PostgresStore), beside a raw
psycopg UPDATE loop and SQLiteStore measured in the same run with the same processes and
sessions; then cross-replica wake-up latency beside raw LISTEN/NOTIFY.

Each writer process is a runtime replica serving `--sessions` concurrent sessions (threads);
each session drives its own handoffs through accept -> start -> complete, one call per move,
acknowledged only after its commit (synchronous_commit stays on; PostgresStore group-commits
the moves of concurrent sessions, PostgreSQL the WAL flushes of concurrent connections). The
raw loop does the same UPDATEs of a record-sized JSON row with psycopg alone: no history rows,
no change notification, no secondary indexes.

Run: python tests/bench/bench_postgres.py [--url postgresql://127.0.0.1:5432/test]
     [--moves 3000] [--sessions 1 8] [--writers 1 2 4] [--wakes 200] [--rounds 2]
Targets: >= 5,000 durable moves/s with 4 writers, >= 70% of the raw psycopg figure;
cross-replica notification p50 <= 10 ms.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, NamedTuple

import psycopg

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.runtime.waiting import StatusWaiter
from engine.stores import MemoryStore, SQLiteStore, Store, open_store

MOVES = ("accept", "start", "complete")
_SPAWN = mp.get_context("spawn")


def seed(store: Store, count: int) -> list[str]:
    """`count` pending records, built in memory and stored in one batch (not timed)."""
    memory = HandoffManager(store=MemoryStore())
    request = HandoffRequest(from_agent="triage", to_agent="fraud", task_description="x" * 200)
    ids = [memory.create_handoff(request).record_id for _ in range(count)]
    store.put_many(memory.store.query())
    return ids


def run_writer(kind: str, target: str, ids: list[str], sessions: int, start: Any, out: Any) -> None:
    """One writer process: `sessions` threads, each moving its share of `ids`. Timed from the
    moment every writer process has all its sessions ready (`start`, a barrier with the
    parent) to the last session's end."""
    drive, warm, close = _driver(kind, target, sessions)
    parts = [ids[k::sessions] for k in range(sessions)]
    warmed = threading.Barrier(sessions + 1)
    go = threading.Event()
    threads = [
        threading.Thread(target=_session, args=(drive, warm, part, warmed, go)) for part in parts
    ]
    for thread in threads:
        thread.start()
    warmed.wait()
    start.wait()
    began, cpu = time.monotonic(), time.process_time()
    go.set()
    for thread in threads:
        thread.join()
    out.put((len(ids) * len(MOVES), began, time.monotonic(), time.process_time() - cpu))
    close()


def _session(
    drive: Callable[[str], None], warm: Callable[[str], object], part: list[str],
    warmed: threading.Barrier, go: threading.Event,
) -> None:
    """Like a session that created its handoffs: connected, records seen, then the moves."""
    for record_id in part:
        warm(record_id)
    warmed.wait()
    go.wait()
    for record_id in part:
        drive(record_id)


Driver = tuple[Callable[[str], None], Callable[[str], object], Callable[[], None]]
"""Moves one handoff through accept/start/complete; warms up for one record; closes."""


def _driver(kind: str, target: str, sessions: int) -> Driver:
    if kind == "raw":
        raw = _raw_driver(target)
        return raw, lambda record_id: raw(""), lambda: None
    store = open_store(f"{target}&pool_size={sessions}") if kind == "postgres" else (
        SQLiteStore(target)
    )
    manager = HandoffManager(store=store)

    def moves(record_id: str) -> None:
        manager.accept(record_id)
        manager.start(record_id)
        manager.complete(record_id, {"ok": True})

    return moves, store.latest, store.close


def _raw_driver(target: str) -> Callable[[str], None]:
    """The baseline: the same three UPDATEs per handoff with psycopg alone, a connection per
    session, each UPDATE its own durable commit."""
    local = threading.local()
    update = (
        f"UPDATE {_raw_table(target)} SET status = %s, version = %s, body = %s"
        " WHERE id = %s AND version = %s"
    )
    body = "x" * 1400  # about the JSON of a moved record

    def raw(record_id: str) -> None:
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = psycopg.connect(target.partition("?")[0], autocommit=True)
        if not record_id:
            return  # warming up: connected
        for version, status in enumerate(("accepted", "in_progress", "completed"), start=1):
            conn.execute(update, (status, version + 1, body, record_id, version), prepare=True)

    return raw


def _raw_table(target: str) -> str:
    return f'"{target.rpartition("schema=")[2]}".raw_records'


class Run(NamedTuple):
    rate: float
    """moves/s of the writers together, first start to last end"""
    cpu_us: float
    """client CPU per move: every thread of the writer processes, while timed"""
    server_us: float | None
    """PostgreSQL's CPU per move while timed (every server process: backends, WAL writer,
    checkpointer...), None for SQLite or a server on another host"""


def server_cpu_s() -> float | None:
    """CPU seconds used so far by the PostgreSQL processes of this host (those that exited
    count through their parent), or None if none can be read."""
    ticks, found = 0, False
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                text = stat.read()
        except OSError:  # gone meanwhile
            continue
        name, fields = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:]
        if name.startswith("postgres"):
            found = True
            ticks += sum(int(value) for value in fields.split()[11:15])  # utime..cstime
    return ticks / os.sysconf("SC_CLK_TCK") if found else None


def measure(kind: str, target: str, writers: int, sessions: int, moves: int) -> Run:
    """Moves/s and client CPU per move of `writers` processes together."""
    records = max(moves // len(MOVES), sessions)
    ids = _prepare(kind, target, writers * records)
    start, out = _SPAWN.Barrier(writers + 1), _SPAWN.Queue()
    shares = [ids[w * records:(w + 1) * records] for w in range(writers)]
    procs = [
        _SPAWN.Process(target=run_writer, args=(kind, target, share, sessions, start, out))
        for share in shares
    ]
    for proc in procs:
        proc.start()
    try:
        start.wait(120)  # every writer imported, connected and warmed up
    except threading.BrokenBarrierError:
        raise SystemExit("a writer process failed or hung before starting") from None
    server_before = server_cpu_s() if kind != "sqlite" else None
    results = [_result(out, procs) for _ in procs]  # writers report before they disconnect
    server_after = server_cpu_s() if server_before is not None else None
    for proc in procs:
        proc.join()
    total = sum(result[0] for result in results)
    elapsed = max(result[2] for result in results) - min(result[1] for result in results)
    server = None
    if server_before is not None and server_after is not None:
        server = (server_after - server_before) / total * 1e6
    return Run(total / elapsed, sum(result[3] for result in results) / total * 1e6, server)


def _result(out: Any, procs: list[Any]) -> tuple[int, float, float, float]:
    """The next writer's result; fails at once if a writer died instead of reporting."""
    while True:
        try:
            return out.get(timeout=1)  # type: ignore[no-any-return]
        except queue.Empty:
            failed = [proc.exitcode for proc in procs if proc.exitcode not in (None, 0)]
            if failed:
                raise SystemExit(f"a writer process failed (exit codes {failed})") from None


def _prepare(kind: str, target: str, count: int) -> list[str]:
    if kind == "raw":
        table = _raw_table(target)
        with psycopg.connect(target.partition("?")[0], autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{target.rpartition("schema=")[2]}"')
            conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.execute(f"CREATE TABLE {table} (id text PRIMARY KEY, status text,"
                         " version integer, body text)")
            ids = [f"r-{n}" for n in range(count)]
            with conn.cursor() as cursor:
                cursor.executemany(f"INSERT INTO {table} VALUES (%s, 'pending', 1, %s)",
                                   [(i, "x" * 1000) for i in ids])
            return ids
    store = open_store(target) if kind == "postgres" else SQLiteStore(target)
    try:
        return seed(store, count)
    finally:
        store.close()


def run_waiter(url: str, ids: list[str], raw: bool, ready: Any, out: Any) -> None:
    """The other replica: wakes for each record in turn and reports when."""
    if raw:
        conn = psycopg.connect(url.partition("?")[0], autocommit=True)
        conn.execute("LISTEN bench_raw")
        ready.set()
        for notify in conn.notifies(stop_after=len(ids)):
            out.put((notify.payload, time.monotonic()))
        return
    store = open_store(url)
    waiter = StatusWaiter(store, poll_s=60, safety_poll_s=60)
    waiter.wait(ids[0], ["pending"])  # subscribed
    ready.set()
    for record_id in ids:
        waiter.wait(record_id, ["accepted"], timeout_s=60)
        out.put((record_id, time.monotonic()))
    waiter.close()
    store.close()


def wake_latency(url: str, count: int, *, raw: bool) -> tuple[list[float], list[float]]:
    """Milliseconds from the call that moves a record on one replica to the wake-up on the
    other: from the call's start (what a waiting session sees), and from its return."""
    with closing(open_store(url)) as store:
        ids = seed(store, count)
    ready, out = _SPAWN.Event(), _SPAWN.Queue()
    proc = _SPAWN.Process(target=run_waiter, args=(url, ids, raw, ready, out))
    proc.start()
    ready.wait(60)
    sent: dict[str, tuple[float, float]] = {}
    with closing(open_store(url)) as store, psycopg.connect(
        url.partition("?")[0], autocommit=True
    ) as conn:
        manager = HandoffManager(store=store)
        for record_id in ids:
            time.sleep(0.01)
            started = time.monotonic()
            if raw:
                conn.execute("SELECT pg_notify('bench_raw', %s)", (record_id,))
            else:
                manager.accept(record_id)
            sent[record_id] = (started, time.monotonic())
    woke = [out.get(timeout=60) for _ in ids]
    proc.join()
    from_start = sorted((at - sent[record_id][0]) * 1000 for record_id, at in woke)
    from_ack = sorted((at - sent[record_id][1]) * 1000 for record_id, at in woke)
    return from_start, from_ack


def bench_moves(args: argparse.Namespace, url: str, folder: Path) -> None:
    for sessions in args.sessions:
        print(f"\nDurable moves/s, {sessions} session(s) per writer process,"
              f" {args.moves:,} moves per writer, best of {args.rounds} interleaved runs;"
              " each run's own ratio: median (lowest-highest); CPU per move: median of runs")
        print(f"  {'writers':>7}  {'raw psycopg':>11}  {'PostgresStore':>13}  {'of raw':>6}"
              f"  {'runs: of raw':>16}  {'SQLiteStore':>11}   client CPU us: raw / Postgres"
              "   server: raw / Postgres")
        for writers in args.writers:
            runs: dict[str, list[Run]] = {"raw": [], "postgres": [], "sqlite": []}
            for n in range(args.rounds):  # interleaved: the host's load drifts
                run = f"{url}_{writers}_{sessions}_{n}"
                targets = {"raw": run, "postgres": run,
                           "sqlite": str(folder / f"{writers}-{sessions}-{n}.db")}
                for kind, target in targets.items():
                    runs[kind].append(measure(kind, target, writers, sessions, args.moves))
            print(f"  {writers:>7}  {_row(runs)}")


def _row(runs: dict[str, list[Run]]) -> str:
    best = {kind: max(run.rate for run in done) for kind, done in runs.items()}
    pairs = zip(runs["raw"], runs["postgres"], strict=True)
    ratios = sorted(ours.rate / raw.rate for raw, ours in pairs)
    spread = f"{statistics.median(ratios):.0%} ({ratios[0]:.0%}-{ratios[-1]:.0%})"

    def cpu(kind: str, side: str) -> str:
        values = [getattr(run, side) for run in runs[kind]]
        known = [value for value in values if value is not None]
        return f"{statistics.median(known):,.0f}" if known else "n/a"

    return (f"{best['raw']:>11,.0f}  {best['postgres']:>13,.0f}"
            f"  {best['postgres'] / best['raw']:>6.0%}  {spread:>16}  {best['sqlite']:>11,.0f}"
            f"   {cpu('raw', 'cpu_us'):>17} / {cpu('postgres', 'cpu_us'):<8}"
            f"   {cpu('raw', 'server_us'):>6} / {cpu('postgres', 'server_us')}")


def bench_wakes(args: argparse.Namespace, url: str) -> None:
    print(f"\nCross-replica wake-up, {args.wakes} handoffs, ms from the move call's start"
          " (from its return)")
    for raw in (True, False):
        latency, after_ack = wake_latency(f"{url}_wake", args.wakes, raw=raw)
        label = "raw pg_notify -> LISTEN (baseline)" if raw else "accept() -> wait_status()"
        p90 = int(len(latency) * 0.9)
        print(f"  {label:<36} p50 {statistics.median(latency):6.2f}"
              f" ({statistics.median(after_ack):5.2f})  p90 {latency[p90]:6.2f}"
              f"  max {latency[-1]:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawTextHelpFormatter)
    default = os.environ.get("HANDOFF_TEST_POSTGRES", "postgresql://127.0.0.1:5432/test")
    parser.add_argument("--url", default=default, help="a database the benchmark may use")
    parser.add_argument("--moves", type=int, default=3000, help="moves per writer process")
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--wakes", type=int, default=200, help="handoffs for the wake-up test")
    parser.add_argument("--rounds", type=int, default=2,
                        help="interleaved runs: best, and the spread of their ratios")
    args = parser.parse_args()
    prefix = f"bench_{os.getpid()}"
    url = f"{args.url}{'&' if '?' in args.url else '?'}schema={prefix}"
    print(f"{args.url} (schemas {prefix}_*); a 2-core shared machine: figures are noisy,"
          " compare the same-run ratios")
    try:
        with tempfile.TemporaryDirectory() as folder:
            bench_moves(args, url, Path(folder))
        bench_wakes(args, url)
    finally:
        with psycopg.connect(args.url, autocommit=True) as conn:
            found = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                 (f"{prefix}%",)).fetchall()
            for (name,) in found:
                conn.execute(f'DROP SCHEMA "{name}" CASCADE')


if __name__ == "__main__":
    main()
