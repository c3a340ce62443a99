"""Two engines on one PostgreSQL store, as two runtime replicas: the store is picked from the
URL, each hears the other's handoffs as hook events, and a session waits across replicas."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from engine.lifecycle import HandoffStatus
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import MemoryStore, SQLiteStore
from tests.patience import HANG_S


@pytest.fixture
def replicas(config_folder: Any, postgres_url: str) -> Iterator[tuple[Engine, Engine]]:
    with Engine(config_folder.path, store=postgres_url, actor="replica-a") as a, \
            Engine(config_folder.path, store=postgres_url, actor="replica-b") as b:
        yield a, b


def test_the_store_is_picked_from_the_location(config_folder: Any, tmp_path: Any) -> None:
    with Engine(config_folder.path) as engine:
        assert isinstance(engine.manager.store, MemoryStore)
    with Engine(config_folder.path, store=tmp_path / "records.db") as engine:
        assert isinstance(engine.manager.store, SQLiteStore)
    with Engine(config_folder.path, store=str(tmp_path / "records.db")) as engine:
        assert isinstance(engine.manager.store, SQLiteStore)


def test_each_replica_hears_the_others_handoffs(
    replicas: tuple[Engine, Engine], wait_for: Any
) -> None:
    from engine.stores import PostgresStore  # after the fixture: skips without the extra

    a, b = replicas
    assert isinstance(a.manager.store, PostgresStore)
    assert a.manager.store.location.startswith("postgresql://")
    heard: list[Event] = []
    a.on("handoff_created", heard.append)
    a.on("handoff_moved", heard.append)
    outcome = b.handoff("my card was stolen", sender="concierge")
    rid = outcome.record.record_id
    b.accept(rid)
    wait_for(lambda: len(heard) == 2, "two remote events on replica A")
    assert [(e.name, e.data) for e in heard] == [
        ("handoff_created", {"record_id": rid, "version": 1, "status": "pending", "remote": True}),
        ("handoff_moved", {"record_id": rid, "version": 2, "status": "accepted", "remote": True}),
    ]
    assert "record" not in heard[0].data  # never the content: read it from the store
    record = a.start(rid)  # a local move: the record itself, not remote
    assert heard[-1].data == {
        "record": record, "record_id": rid, "version": 3, "status": "in_progress", "remote": False
    }
    assert len(heard) == 3  # the local move was not heard a second time through the feed


def test_a_session_on_one_replica_waits_for_the_other_to_accept(
    replicas: tuple[Engine, Engine],
) -> None:
    a, b = replicas
    call = a.session()
    outcome = a.handoff("my card was stolen", session=call)
    rid = outcome.record.record_id
    accepter = threading.Timer(0.05, lambda: b.accept(rid, actor="fraud_agent"))
    accepter.start()
    record = a.wait_status(rid, "accepted", timeout_s=HANG_S)
    accepter.join()
    assert record.status is HandoffStatus.accepted
    assert record.history[-1].actor == "fraud_agent"

    async def until_completed() -> HandoffStatus:
        finisher = threading.Timer(0.05, lambda: b.complete(rid, {"case": "F-1"}))
        finisher.start()
        done = await a.await_status(rid, HandoffStatus.completed, timeout_s=HANG_S)
        finisher.join()
        return done.status

    assert asyncio.run(until_completed()) is HandoffStatus.completed
