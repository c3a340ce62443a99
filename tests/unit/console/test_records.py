"""Record search for the console: newest first, paged, by session, redacted, timelines."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from engine.console import records
from engine.console.records import RecordsView, Search, timeline
from engine.errors import UsageError
from engine.lifecycle import HandoffManager, HandoffRequest
from engine.redaction import Redactor
from engine.stores import MemoryStore

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
def store() -> MemoryStore:
    """12 handoffs, one a second, in sessions s0-s2; every third one completed."""
    memory = MemoryStore()
    manager = HandoffManager(store=memory, clock=Clock(), pending_timeout_s=3600,
                             redactor=Redactor([], defaults=False))
    for n in range(12):
        record = manager.create_handoff(HandoffRequest(
            from_agent="concierge", to_agent="fraud_agent" if n % 2 else "claims",
            task_description=f"task {n}",
            context={"session_id": f"s{n % 3}", "password": "hunter2", "customer_id": "C-1"},
        ))
        if n % 3 == 0:
            manager.accept(record.record_id)
            manager.start(record.record_id)
            manager.complete(record.record_id, {"api_token": "t", "ok": True})
    return memory


def test_pages_are_newest_first(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "PAGE_SIZE", 5)
    view = RecordsView(store)
    first, last = view.search(Search(page=1)), view.search(Search(page=3))
    assert [r.request.task_description for r in first.records] == \
        [f"task {n}" for n in (11, 10, 9, 8, 7)]
    assert [r.request.task_description for r in last.records] == ["task 1", "task 0"]
    assert (first.total, first.pages) == (12, 3)
    assert view.search(Search(page=4)).records == []


def test_filters_by_status_agent_session_and_time(store: MemoryStore) -> None:
    view = RecordsView(store)
    assert view.search(Search(status=Search.parse({"status": "completed"}).status)).total == 4
    assert view.search(Search(agent="claims")).total == 6
    by_session = view.search(Search(session="s1"))
    assert [r.request.task_description for r in by_session.records] == \
        ["task 10", "task 7", "task 4", "task 1"]
    assert view.search(Search(session="s1", agent="claims")).total == 2
    fifth = store.query()[4].created_at
    since = Search.parse({"since": fifth.replace(tzinfo=None).isoformat()})  # naive: UTC
    assert view.search(since).total == 12 - 4
    assert view.search(Search(until=fifth)).total == 4


def test_session_search_is_bounded(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "SESSION_SCAN", 4)
    page = RecordsView(store).search(Search(session="s0"))
    assert not page.scanned_all
    assert [r.request.task_description for r in page.records] == ["task 9"]


def test_records_are_redacted_by_defaults_and_config(store: MemoryStore) -> None:
    view = RecordsView(store, Redactor(["customer_id"]))
    for record in view.search(Search()).records:
        assert record.request.context["password"] == "[redacted]"
        assert record.request.context["customer_id"] == "[redacted]"
        assert record.request.context["session_id"].startswith("s")
    done = view.search(Search(status=Search.parse({"status": "completed"}).status)).records[0]
    assert view.get(done.record_id).result == {"api_token": "[redacted]", "ok": True}


@pytest.mark.parametrize(("params", "message"), [
    ({"status": "lost"}, "status 'lost': expected one of pending"),
    ({"page": "0"}, "page '0': expected a whole number from 1"),
    ({"page": "x"}, "page 'x'"),
    ({"until": "tomorrow"}, "until 'tomorrow': expected an ISO 8601 time"),
])
def test_bad_filters_say_which_and_why(params: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Search.parse(params)


def test_timeline_lists_every_move_with_the_time_between(store: MemoryStore) -> None:
    done = RecordsView(store).search(Search(status=Search.parse({"status": "completed"}).status))
    steps = timeline(done.records[0])
    assert [(s.trigger, s.source, s.dest) for s in steps] == [
        ("create", "", "pending"), ("accept", "pending", "accepted"),
        ("start", "accepted", "in_progress"), ("complete", "in_progress", "completed")]
    assert [s.after for s in steps] == ["", "+1.0 s", "+1.0 s", "+1.0 s"]


def test_open_store_reads_sqlite_files_only() -> None:
    with pytest.raises(UsageError, match="expected a SQLite store file"):
        records.open_store("postgresql://db/records")
