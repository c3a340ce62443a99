"""Store test helpers: one `store` fixture over every implementation, and record builders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.errors import VersionConflict
from engine.lifecycle import HandoffRecord
from engine.stores import MemoryStore, SQLiteStore, Store, open_store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

STORES: dict[str, Callable[[pytest.FixtureRequest], Store]] = {
    "memory": lambda request: MemoryStore(),
    "sqlite": lambda request: SQLiteStore(request.getfixturevalue("tmp_path") / "records.db"),
    "postgres": lambda request: open_store(request.getfixturevalue("postgres_url")),
}
"""Every store the contract suite runs on; postgres skips (or fails in CI) without a server."""


@pytest.fixture(params=["sqlite", "postgres"])
def open_shared(request: pytest.FixtureRequest) -> Iterator[Callable[[], Store]]:
    """Opens another store object on one location, as another process would (durable stores
    only); every object it opened is closed afterwards."""
    location = (
        str(request.getfixturevalue("tmp_path") / "records.db") if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    opened: list[Store] = []

    def open_one() -> Store:
        opened.append(open_store(location))
        return opened[-1]

    yield open_one
    for each in opened:
        each.close()


@pytest.fixture(params=sorted(STORES))
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    opened = STORES[request.param](request)
    yield opened
    opened.close()


def make_record(n: int, **fields: Any) -> HandoffRecord:
    """Record number `n`: created `n` minutes after T0, from agent a{n%2} to b{n%3}."""
    request = {
        "from_agent": f"a{n % 2}",
        "to_agent": f"b{n % 3}",
        "task_description": f"task {n}",
        "deadline": fields.pop("deadline", None),
    }
    created = T0 + timedelta(minutes=n)
    values: dict[str, Any] = {
        "record_id": f"h-{n}",
        "request": request,
        "created_at": created,
        "updated_at": created,
        "history": [{"from": None, "to": "pending", "trigger": "create", "at": created}],
    }
    values.update(fields)
    return HandoffRecord.model_validate(values)


@pytest.fixture
def record() -> Callable[..., HandoffRecord]:
    return make_record


def recording_writer(
    store: Store, outcomes: dict[str, str]
) -> Callable[[str, HandoffRecord], None]:
    """A writer for racing threads: replaces at version 1, notes "ok" or "conflict" by name."""

    def write(name: str, change: HandoffRecord) -> None:
        try:
            store.replace(change, expected_version=1)
            outcomes[name] = "ok"
        except VersionConflict:
            outcomes[name] = "conflict"

    return write


@pytest.fixture
def racing_writer() -> Callable[..., Callable[[str, HandoffRecord], None]]:
    return recording_writer
