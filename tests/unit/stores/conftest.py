"""Store test helpers: one `store` fixture over every implementation, and record builders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from engine.lifecycle import HandoffRecord
from engine.stores import MemoryStore, SQLiteStore, Store, open_store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

STORES: dict[str, Callable[[pytest.FixtureRequest], Store]] = {
    "memory": lambda request: MemoryStore(),
    "sqlite": lambda request: SQLiteStore(request.getfixturevalue("tmp_path") / "records.db"),
    "postgres": lambda request: open_store(request.getfixturevalue("postgres_url")),
}
"""Every store the contract suite runs on; postgres skips (or fails in CI) without a server."""


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
