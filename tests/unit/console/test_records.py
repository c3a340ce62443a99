"""Record search for the console: newest first, paged, by session, redacted, timelines; bad
filters are 400s naming the parameter, and a record link opens that record whatever its id."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from urllib.parse import urljoin

import pytest
from starlette.testclient import TestClient

from engine.console import records
from engine.console.records import RecordsView, Search, timeline
from engine.errors import UsageError
from engine.lifecycle import HandoffManager, HandoffRequest
from engine.records.models import HandoffRecord
from engine.redaction import Redactor
from engine.runtime.engine import Engine
from engine.stores import MemoryStore

from .conftest import BANKING

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
    ({"page": "\u00b2"}, "page '\u00b2': expected a whole number from 1 to 1000000000"),
    ({"page": "\u2460"}, "page '\u2460': expected a whole number"),
    ({"page": "9" * 5000}, r"page '9{40}\.\.\.': expected a whole number from 1 to 1000000000"),
    ({"until": "0001-01-01T00:00:00+14:00"},
     r"until '0001-01-01T00:00:00\+14:00': outside the range of UTC times"),
    ({"since": "9999-12-31T23:59:59-23:59"},
     "since '9999-12-31T23:59:59-23:59': outside the range"),
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


@pytest.fixture
def client(store: MemoryStore) -> Iterator[TestClient]:
    """The console's real app over banking and `store`."""
    from engine.console.app import build_app

    with Engine(BANKING, sweep_interval_s=None) as engine, \
            TestClient(build_app(engine, store=store, watch=None)) as running:
        yield running


@pytest.mark.parametrize(("query", "message"), [
    ("until=0001-01-01T00:00:00%2B14:00", "until '0001-01-01T00:00:00+14:00': outside the range "
                                          "of UTC times (years 1 to 9999)"),
    ("since=9999-12-31T23:59:59-23:59", "since '9999-12-31T23:59:59-23:59': outside the range "
                                        "of UTC times (years 1 to 9999)"),
    ("page=%C2%B2", "page '\u00b2': expected a whole number from 1 to 1000000000"),
    ("page=%E2%91%A0", "page '\u2460': expected a whole number from 1 to 1000000000"),
    ("page=" + "9" * 5000, f"page '{'9' * 40}...': expected a whole number from 1 to 1000000000"),
])
def test_a_bad_search_is_a_400_naming_the_parameter(client: TestClient, query: str,
                                                    message: str) -> None:
    page = client.get("/records?" + query)
    assert page.status_code == 400
    found = re.search(r'id="search-error">([^<]*)<', page.text)
    assert found is not None and html.unescape(found.group(1)) == message


def test_a_record_link_opens_that_record_whatever_its_id(store: MemoryStore,
                                                         client: TestClient) -> None:
    """An imported id may hold `/`, `..`, `?` or `#`: its link is one path segment, so the
    browser's resolving of `..` cannot turn it into another record's link."""
    other = store.query()[0]
    odd_id = f"x/../{other.record_id}?a#b"
    store.add(HandoffRecord.model_validate({**other.model_dump(), "record_id": odd_id}))
    listing = client.get("/records", params={"page": "1"})
    links = re.findall(r'href="(/records/[^"]*)"', listing.text)
    link = next(href for href in links if href.startswith("/records/x"))
    assert link == f"/records/x%2F..%2F{other.record_id}%3Fa%23b"
    assert urljoin("http://testserver/records", link) == f"http://testserver{link}"
    opened = client.get(link)
    assert opened.status_code == 200
    assert f"<h1>Handoff <code>{html.escape(odd_id)}</code></h1>" in opened.text
