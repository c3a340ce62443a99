"""Waiting for a record's status on every store: woken by the change feed (memory, PostgreSQL
across replicas, a reconnect), by polling (SQLite written by another process), sync and async."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.errors import UsageError, WaitTimeout
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest, HandoffStatus
from engine.runtime.waiting import REACHABLE, StatusWaiter
from engine.stores import MemoryStore, SQLiteStore, Store, open_store
from tests.patience import HANG_S

S = HandoffStatus
NEVER = 4 * HANG_S  # a poll interval no test may rely on: only a wake-up ends these waits


def new_handoff(manager: HandoffManager) -> str:
    request = HandoffRequest(from_agent="a", to_agent="b", task_description="t")
    return manager.create_handoff(request).record_id


def later(action: Callable[[], object], delay_s: float = 0.05) -> threading.Thread:
    thread = threading.Timer(delay_s, action)
    thread.start()
    return thread


@pytest.fixture
def memory() -> Iterator[tuple[HandoffManager, StatusWaiter]]:
    manager = HandoffManager(store=MemoryStore())
    waiter = StatusWaiter(manager.store, poll_s=NEVER, safety_poll_s=NEVER)
    yield manager, waiter
    waiter.close()


def test_a_move_wakes_the_waiter(memory: tuple[HandoffManager, StatusWaiter]) -> None:
    manager, waiter = memory
    rid = new_handoff(manager)
    mover = later(lambda: manager.accept(rid))
    started = time.monotonic()
    record = waiter.wait(rid, ["accepted"], timeout_s=HANG_S)
    mover.join()
    assert record.status is S.accepted and record.version == 2
    assert time.monotonic() - started < NEVER / 2


def test_a_status_it_can_no_longer_reach_ends_the_wait(
    memory: tuple[HandoffManager, StatusWaiter],
) -> None:
    manager, waiter = memory
    rid = new_handoff(manager)
    manager.reject(rid, "busy")
    assert waiter.wait(rid, [S.accepted], timeout_s=HANG_S).status is S.rejected
    moved = new_handoff(manager)
    manager.accept(moved)
    manager.start(moved)  # already past accepted: nothing to wait for
    assert waiter.wait(moved, ["accepted"], timeout_s=HANG_S).status is S.in_progress
    assert REACHABLE[S.pending] == {S.accepted, S.in_progress, S.completed, S.rejected, S.failed}
    assert REACHABLE[S.completed] == frozenset()


def test_timeout_and_bad_statuses(memory: tuple[HandoffManager, StatusWaiter]) -> None:
    manager, waiter = memory
    rid = new_handoff(manager)
    with pytest.raises(WaitTimeout) as caught:
        waiter.wait(rid, ["accepted", "rejected"], timeout_s=0.05)
    assert (caught.value.record_id, caught.value.status) == (rid, "pending")
    assert caught.value.statuses == ("accepted", "rejected")
    assert str(caught.value) == (
        f"handoff {rid}: still 'pending' after 0.05s waiting for 'accepted' or 'rejected'"
    )
    assert isinstance(caught.value, TimeoutError)
    with pytest.raises(UsageError, match=re.escape("unknown status 'acepted'; known: pending")):
        waiter.wait(rid, ["acepted"])
    with pytest.raises(UsageError, match="at least one status"):
        waiter.wait(rid, [])
    with pytest.raises(UsageError, match="poll intervals"):
        StatusWaiter(manager.store, poll_s=0)


def test_await_wakes_on_the_loop(memory: tuple[HandoffManager, StatusWaiter]) -> None:
    manager, waiter = memory
    rid = new_handoff(manager)

    async def scenario() -> HandoffStatus:
        looped = threading.Event()  # the move waits for the loop to run: a blocked loop hangs
        mover = later(lambda: looped.wait(HANG_S) and manager.accept(rid))
        ticks = 0

        async def tick() -> None:  # the loop keeps running while the waiter waits
            nonlocal ticks
            while True:
                ticks += 1
                if ticks > 3:
                    looped.set()
                await asyncio.sleep(0.001)

        ticker = asyncio.create_task(tick())
        record = await waiter.await_(rid, ["accepted"], timeout_s=HANG_S)
        ticker.cancel()
        mover.join()
        assert ticks > 3
        with pytest.raises(WaitTimeout):
            await waiter.await_(rid, ["completed"], timeout_s=0.05)
        return record.status

    assert asyncio.run(scenario()) is S.accepted


def test_sqlite_written_by_another_process_is_polled(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    here, there = SQLiteStore(path), HandoffManager(store=SQLiteStore(path))
    waiter = StatusWaiter(here, poll_s=0.02, safety_poll_s=NEVER)  # `there` stands for it
    rid = new_handoff(there)
    mover = later(lambda: there.accept(rid))
    assert waiter.wait(rid, ["accepted"], timeout_s=HANG_S).status is S.accepted
    mover.join()
    waiter.close()
    here.close()
    there.store.close()


@pytest.fixture
def replicas(postgres_url: str) -> Iterator[tuple[Store, HandoffManager, StatusWaiter]]:
    """Two replicas on one PostgreSQL schema: a waiting one and a moving one."""
    here = open_store(postgres_url)
    there = HandoffManager(store=open_store(postgres_url))
    waiter = StatusWaiter(here, poll_s=NEVER, safety_poll_s=NEVER)
    yield here, there, waiter
    waiter.close()
    here.close()
    there.store.close()


def test_a_move_on_another_replica_wakes_the_waiter(
    replicas: tuple[Store, HandoffManager, StatusWaiter],
) -> None:
    _, there, waiter = replicas
    rid = new_handoff(there)
    mover = later(lambda: there.accept(rid))
    assert waiter.wait(rid, ["accepted"], timeout_s=HANG_S).status is S.accepted
    mover.join()

    async def moved_elsewhere() -> HandoffStatus:
        mover = later(lambda: there.complete(rid, {"ok": True}))
        record = await waiter.await_(rid, [S.completed], timeout_s=HANG_S)
        mover.join()
        return record.status

    assert asyncio.run(moved_elsewhere()) is S.completed


def test_a_move_missed_while_reconnecting_is_read_after_it(
    replicas: tuple[Store, HandoffManager, StatusWaiter], postgres_url: str
) -> None:
    import psycopg

    here, there, waiter = replicas
    rid = new_handoff(there)
    schema = postgres_url.rpartition("schema=")[2]
    table = f'"{schema}".handoff_records'
    result: list[HandoffStatus] = []
    started = time.monotonic()
    first_read = threading.Event()
    read = waiter.store.get

    def get(record_id: str) -> HandoffRecord:  # the waiter's reads; the first one is signalled
        try:
            return read(record_id)
        finally:
            first_read.set()

    waiter.store.get = get  # type: ignore[method-assign]
    waiting = threading.Thread(
        target=lambda: result.append(waiter.wait(rid, ["accepted"], timeout_s=NEVER).status)
    )
    waiting.start()
    assert first_read.wait(HANG_S)  # the waiter has looked once and now waits for a wake-up
    offline = HandoffManager(store=MemoryStore())  # the move, made without the store's SQL
    offline.store.put_many([there.get(rid)])
    accepted = offline.accept(rid)
    with psycopg.connect(postgres_url.partition("?")[0], autocommit=True) as admin:
        admin.execute(  # a write that sends no notification: only a re-read can see it
            f"UPDATE {table} SET status = 'accepted', version = 2, body = %s"
            " WHERE record_id = %s", (accepted.model_dump_json(), rid),
        )
        time.sleep(0.1)
        assert waiting.is_alive() and not result
        listener = f"handoff-engine listener {getattr(here, 'origin')}"  # noqa: B009
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = %s", (listener,),
        )
    waiting.join(HANG_S)
    assert result == [S.accepted]
    assert time.monotonic() - started < NEVER / 2  # woken by the re-read, not the last look

