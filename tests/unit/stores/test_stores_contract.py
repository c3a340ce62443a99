"""The one contract every `Store` honours, run against each implementation."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest

from engine.errors import RecordImportError, RecordNotFound, UsageError, VersionConflict
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest, HandoffStatus, Move
from engine.lifecycle.transfer import iter_records
from engine.records.store import RestoreCounts
from engine.stores import RecordQuery, Store
from engine.stores.changes import ChangeFeed, RecordChange
from tests.unit.stores.conftest import T0, make_record

S = HandoffStatus
MakeRecord = Callable[..., HandoffRecord]


def test_is_a_store(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.location


def test_add_get_and_unknown_id(store: Store, record: MakeRecord) -> None:
    first = record(1, context={"k": "v"})
    store.add(first)
    assert store.get("h-1") == first
    with pytest.raises(RecordNotFound):
        store.get("h-2")
    with pytest.raises(VersionConflict) as caught:
        store.add(first)
    assert (caught.value.expected, caught.value.actual) == (0, 1)


def test_replace_only_at_the_expected_version(store: Store, record: MakeRecord) -> None:
    store.add(record(1))
    moved = record(1, status="accepted", version=2)
    store.replace(moved, expected_version=1)
    assert store.get("h-1") == moved
    stale = record(1, status="rejected", version=2)
    with pytest.raises(VersionConflict) as caught:
        store.replace(stale, expected_version=1)
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert "another writer moved it first" in str(caught.value)
    assert store.get("h-1") == moved
    with pytest.raises(RecordNotFound):
        store.replace(record(9, version=2), expected_version=1)


def test_two_store_objects_on_one_location_never_overwrite_each_other(
    open_shared: Callable[[], Store], record: MakeRecord
) -> None:
    first, second = open_shared(), open_shared()
    first.add(record(1))
    first.replace(record(1, version=2, status="accepted"), expected_version=1)
    with pytest.raises(VersionConflict):
        second.replace(record(1, version=2, status="rejected"), expected_version=1)
    assert second.get("h-1").status is S.accepted
    second.replace(record(1, version=3, status="in_progress"), expected_version=2)
    assert first.latest("h-1").version == 2  # its last-seen copy is stale...
    assert first.get("h-1").status is S.in_progress  # ...get reads what the other wrote


def test_replace_many_is_atomic(store: Store, record: MakeRecord) -> None:
    store.add(record(1))
    store.add(record(2))
    chain = [(record(1, version=2, status="accepted"), 1), (record(1, version=3), 2)]
    store.replace_many(chain)
    assert store.get("h-1").version == 3
    with pytest.raises(VersionConflict):
        store.replace_many([(record(2, version=2), 1), (record(1, version=4), 1)])
    assert store.get("h-2").version == 1  # the first change of the failed batch is not kept


def test_query_filters_order_and_pages(store: Store, record: MakeRecord) -> None:
    for n in (3, 0, 5, 1, 4, 2):  # inserted out of order: results still oldest first
        store.add(record(n, status="accepted" if n % 2 else "pending"))
    ids = lambda query: [r.record_id for r in store.query(query)]  # noqa: E731
    assert ids(RecordQuery()) == [f"h-{n}" for n in range(6)]
    assert ids(RecordQuery(status=S.accepted)) == ["h-1", "h-3", "h-5"]
    assert ids(RecordQuery(agent="b0")) == ["h-0", "h-3"]
    assert ids(RecordQuery(agent="a1")) == ["h-1", "h-3", "h-5"]
    t0 = record(0).created_at
    since, until = t0 + timedelta(minutes=2), t0 + timedelta(minutes=4)
    assert ids(RecordQuery(since=since, until=until)) == ["h-2", "h-3"]
    naive = RecordQuery(since=since.replace(tzinfo=None), until=until.replace(tzinfo=None))
    assert ids(naive) == ["h-2", "h-3"]
    assert ids(RecordQuery(limit=2, offset=1)) == ["h-1", "h-2"]
    assert ids(RecordQuery(status=S.pending, limit=5, offset=2)) == ["h-4"]
    assert store.count(RecordQuery(status=S.pending, limit=1)) == 3
    assert store.count() == 6


def test_bad_pagination_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="limit"):
        RecordQuery(limit=-1)
    with pytest.raises(UsageError, match="offset"):
        RecordQuery(offset=-3)
    for field in ("limit", "offset"):  # past what a database's 64-bit row count holds
        with pytest.raises(UsageError, match=f"query {field} must be between 0 and {2**63 - 1}"):
            RecordQuery(**{field: 2**63})


def test_the_largest_offset_is_read_by_every_store(store: Store, record: MakeRecord) -> None:
    store.add(record(1))
    assert store.query(RecordQuery(offset=2**63 - 1, limit=2**63 - 1)) == []


def test_put_many_inserts_and_overwrites(store: Store, record: MakeRecord) -> None:
    store.add(record(1))
    assert store.put_many([record(1, version=5, status="failed"), record(2)]) == 2
    assert store.get("h-1").version == 5
    assert [r.record_id for r in store.query()] == ["h-1", "h-2"]


def test_due_lists_overdue_live_records(store: Store, record: MakeRecord) -> None:
    t0 = record(0).created_at
    store.add(record(0))  # pending since t0
    store.add(record(1, status="accepted"))  # accepted, no deadline
    store.add(record(2, status="accepted", deadline=t0 + timedelta(minutes=3)))
    store.add(record(3, status="completed", deadline=t0))  # finished: never due
    due = store.due(created_before=t0 + timedelta(seconds=30), now=t0 + timedelta(minutes=3))
    assert [r.record_id for r in due] == ["h-0", "h-2"]
    assert store.due(created_before=t0, now=t0 + timedelta(minutes=2)) == []


def test_manager_on_the_store_survives_concurrent_threads(store: Store) -> None:
    manager = HandoffManager(store=store)
    ids = [
        manager.create_handoff(HandoffRequest(from_agent="a", to_agent="b", task_description="t"))
        .record_id
        for _ in range(20)
    ]

    def drive(part: list[str]) -> None:
        for record_id in part:
            manager.accept(record_id)
            manager.complete(record_id, {"ok": True})

    threads = [threading.Thread(target=drive, args=(ids[i::3],)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.version for r in store.query(RecordQuery(status=S.completed))] == [3] * 20


def test_iter_records_reads_page_by_page(store: Store, record: MakeRecord) -> None:
    store.put_many(record(n) for n in range(7))
    every = [r.record_id for r in iter_records(store, page=3)]
    assert every == [f"h-{n}" for n in range(7)]
    window = iter_records(store, RecordQuery(offset=2, limit=4), page=3)
    assert [r.record_id for r in window] == ["h-2", "h-3", "h-4", "h-5"]


def _expired(current: HandoffRecord) -> HandoffRecord:
    return current.model_copy(update={"status": S.failed, "version": current.version + 1})


def test_expire_due_writes_what_expire_returns_oldest_first(
    store: Store, record: MakeRecord
) -> None:
    store.put_many(record(n) for n in range(4))
    t0 = record(0).created_at
    keep = {"h-1"}

    def expire(current: HandoffRecord) -> HandoffRecord | None:
        return None if current.record_id in keep else _expired(current)

    due = {"created_before": t0 + timedelta(hours=1), "now": t0}
    first = store.expire_due(**due, expire=expire, limit=2)
    assert [r.record_id for r in first] == ["h-0"]  # h-1 claimed but left as it was
    assert store.get("h-1").version == 1
    second = store.expire_due(**due, expire=expire)
    assert [r.record_id for r in second] == ["h-2", "h-3"]
    assert [r.status for r in store.query()] == [S.failed, S.pending, S.failed, S.failed]
    assert store.get("h-3") == second[1]


def test_sweepers_on_several_threads_expire_each_record_once(
    store: Store, record: MakeRecord
) -> None:
    store.put_many(record(n) for n in range(200))
    store.add(record(250, status="accepted"))  # live but not overdue: never expired
    later = record(0).created_at + timedelta(days=1)
    managers = [
        HandoffManager(store=store, pending_timeout_s=60, clock=lambda: later) for _ in range(4)
    ]
    swept: list[list[HandoffRecord]] = []
    start = threading.Barrier(len(managers))

    def sweep(manager: HandoffManager) -> None:
        start.wait()  # every sweeper claims at the same moment
        swept.append(manager.expire_overdue())

    threads = [threading.Thread(target=sweep, args=(manager,)) for manager in managers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = sorted(r.record_id for batch in swept for r in batch)
    assert ids == sorted(f"h-{n}" for n in range(200))  # every one, none twice
    for found in store.query(RecordQuery(status=S.failed)):
        assert found.version == 2 and [m.trigger for m in found.history] == ["create", "expire"]
    assert store.get("h-250").status is S.accepted


def test_change_feed_reports_this_stores_durable_writes(store: Store, record: MakeRecord) -> None:
    assert isinstance(store, ChangeFeed)
    seen: list[RecordChange] = []
    stop = store.subscribe(seen.append)
    store.add(record(1))
    store.replace(record(1, version=2, status="accepted"), expected_version=1)
    with pytest.raises(VersionConflict):
        store.replace(record(1, version=2, status="rejected"), expected_version=1)
    store.replace_many([(record(1, version=3, status="in_progress"), 2)])
    store.put_many([record(2)])
    stop()
    store.add(record(3))
    assert [(c.record_id, c.version, c.status.value, c.remote) for c in seen] == [
        ("h-1", 1, "pending", False),
        ("h-1", 2, "accepted", False),
        ("h-1", 3, "in_progress", False),
        ("h-2", 1, "pending", False),
    ]


def test_ids_with_prefix_are_sorted_capped_and_exact_about_the_prefix(
    store: Store, record: MakeRecord
) -> None:
    ids = ["abcd1234", "abcd9999", "abce0000", "abc", "ab%d_x", "zz\U0010ffff"]
    for n, record_id in enumerate(ids):
        store.add(record(n, record_id=record_id))
    assert store.ids_with_prefix("abcd", limit=10) == ["abcd1234", "abcd9999"]
    assert store.ids_with_prefix("abc", limit=2) == ["abc", "abcd1234"]
    assert store.ids_with_prefix("ab%", limit=10) == ["ab%d_x"]  # no wildcards
    assert store.ids_with_prefix("ABCD", limit=10) == []
    assert store.ids_with_prefix("zz\U0010ffff", limit=10) == ["zz\U0010ffff"]


def test_a_unique_prefix_resolves_and_an_ambiguous_one_lists_the_matches(
    store: Store, record: MakeRecord
) -> None:
    from engine.records.store import resolve_record_id

    for n, record_id in enumerate(["f56cc95d-1", "f56cc95d-2", "37407543-x"]):
        store.add(record(n, record_id=record_id))
    assert resolve_record_id(store, "3740") == "37407543-x"
    assert resolve_record_id(store, "f56cc95d-2") == "f56cc95d-2"
    listed = r"'f56c' is ambiguous: it matches f56cc95d-1, f56cc95d-2$"
    with pytest.raises(UsageError, match=listed):
        resolve_record_id(store, "f56c")
    with pytest.raises(RecordNotFound):
        resolve_record_id(store, "999999")
    with pytest.raises(RecordNotFound):
        resolve_record_id(store, "374")  # shorter than 4 characters: never a prefix


def _with_nul(n: int, **fields: object) -> HandoffRecord:
    """Record `n` with a NUL character in every text a store might keep in a column of its own."""
    base = make_record(n).model_dump(mode="json")
    base["request"].update(from_agent="a\x00nul", to_agent=f"b\x00{n}",
                           task_description="t\x00", context={"k\x00": "v\x00"})
    base["history"][0]["actor"] = "ops\x00"
    return HandoffRecord.model_validate(base | fields)


def test_a_nul_character_in_any_text_is_stored_as_given(store: Store) -> None:
    at = T0 + timedelta(hours=1)
    first = _with_nul(1)
    store.add(first)  # one history entry
    rejected = first.model_copy(update={"status": S.rejected, "version": 2, "history": (
        *first.history,
        Move(from_=S.pending, to=S.rejected, trigger="reject", at=at, reason="no\x00",
             actor="x\x00"),
    )})
    store.replace(rejected, expected_version=1)  # one new entry
    second = _with_nul(2)
    store.add(second)
    jumped = second.model_copy(update={"status": S.in_progress, "version": 3, "history": (
        *second.history,
        Move(from_=S.pending, to=S.accepted, trigger="accept", at=at, actor="y\x00"),
        Move(from_=S.accepted, to=S.in_progress, trigger="start", at=at, reason="z\x00"),
    )})
    store.replace_many([(jumped, 1)])  # several new entries at once
    imported = _with_nul(3, status="accepted", history=[
        *_with_nul(3).model_dump(mode="json")["history"],
        {"from": "pending", "to": "accepted", "trigger": "accept", "at": at, "reason": "\x00"},
    ])
    store.put_many([imported])  # a whole history at once
    assert [store.get(r.record_id) for r in (rejected, jumped, imported)] == [
        rejected, jumped, imported]
    assert store.query(RecordQuery(agent="a\x00nul")) == [rejected, jumped, imported]
    assert store.query(RecordQuery(agent="b\x002")) == [jumped]
    assert store.count(RecordQuery(agent="a\ufffdnul")) == 0  # NUL is not read as U+FFFD
    assert store.ids_with_prefix("h-\x00", limit=5) == []
    with pytest.raises(RecordNotFound):
        store.get("h-\x001")
    store.add(_with_nul(4))
    expired = store.expire_due(created_before=at, now=at, expire=_expired)
    assert [r.record_id for r in expired] == ["h-4"]
    assert store.get("h-4") == expired[0]


OUT_OF_RANGE = [
    ({"record_id": "x" * 513}, "record_id: longer than 512 characters"),
    ({"record_id": ""}, "record_id: empty"),
    ({"record_id": "h\x00nul"}, "record_id: holds a control character (U+0000)"),
    ({"record_id": "h\x1b[2J"}, "record_id: holds a control character (U+001B)"),
    ({"record_id": "h\ud800"}, "record_id: holds a lone surrogate"),
    ({"record_id": ".."}, "record_id: is a dot segment"),
    ({"record_id": "."}, "record_id: is a dot segment: a URL path"),
    ({"version": 2**31 - 3}, "version: 2147483645 is outside 1 to 2147483644"),
    ({"version": 2**63}, "version: 9223372036854775808 is outside 1 to 2147483644"),
    ({"request": {"from_agent": "a" * 600, "to_agent": "b", "task_description": "t"}},
     "request.from_agent: longer than 512 characters"),
    ({"request": {"from_agent": "a", "to_agent": "\udc00", "task_description": "t"}},
     "request.to_agent: holds a lone surrogate"),
]


@pytest.mark.parametrize(("change", "words"), OUT_OF_RANGE, ids=[w for _, w in OUT_OF_RANGE])
def test_what_a_store_cannot_keep_is_refused_the_same_by_every_store(
    store: Store, record: MakeRecord, change: dict[str, object], words: str
) -> None:
    bad = record(1, **change)
    for write in (store.add, lambda r: store.put_many([record(2), r])):
        with pytest.raises(UsageError, match=re.escape(words)) as caught:
            write(bad)
        assert "no store keeps it" in str(caught.value)
    assert store.count() == 0  # nothing written, not even the good record of the batch


def test_a_move_past_the_last_version_is_refused_and_changes_nothing(
    store: Store, record: MakeRecord
) -> None:
    last = 2**31 - 1
    store.add(record(1, version=last - 3))  # a new record leaves room for three moves
    store.replace(record(1, version=last), expected_version=last - 3)
    beyond = record(1, version=last + 1, status="accepted")
    words = "version: 2147483648 is outside 1 to 2147483647"
    with pytest.raises(UsageError, match=words):
        store.replace(beyond, expected_version=last)
    with pytest.raises(UsageError, match=words):
        store.replace_many([(beyond, last)])
    assert store.get("h-1") == record(1, version=last)


def test_moving_a_record_no_store_can_hold_is_record_not_found(
    store: Store, record: MakeRecord
) -> None:
    """A move checks the version only (a stored record always moves on); an id that no record
    can have is simply not found, on PostgreSQL too (whose text cannot hold a NUL)."""
    store.add(record(1))
    with pytest.raises(RecordNotFound):
        store.replace(record(9, record_id="h\x00", version=2), expected_version=1)


def test_restore_keeps_stored_records_unless_told_to_replace_them(
    store: Store, record: MakeRecord
) -> None:
    genuine = record(1, status="completed", version=3, history=[
        {"from": None, "to": "pending", "trigger": "create", "at": T0},
        {"from": "pending", "to": "accepted", "trigger": "accept", "at": T0},
        {"from": "accepted", "to": "completed", "trigger": "complete", "at": T0},
    ])
    store.add(genuine)
    forged = record(1, status="rejected", version=2)
    kept = store.restore([forged, record(2)])
    assert kept == RestoreCounts(added=1, replaced=0, skipped=1)
    assert store.get("h-1") == genuine and store.get("h-2") == record(2)
    replaced = store.restore([forged, record(3)], replace=True)
    assert replaced == RestoreCounts(added=1, replaced=1, skipped=0)
    assert store.get("h-1") == forged
    assert store.count() == 3


def test_restore_reads_records_as_it_writes_and_an_error_writes_nothing(
    store: Store, record: MakeRecord
) -> None:
    store.add(record(0))
    read: list[int] = []

    def records() -> Iterator[HandoffRecord]:
        for n in range(1, 1200):
            read.append(n)
            if n == 1100:
                raise RecordImportError(n, "bad item")
            yield record(n)

    with pytest.raises(RecordImportError):
        store.restore(records(), replace=True)
    assert read[-1] == 1100
    assert [r.record_id for r in store.query()] == ["h-0"]  # all or nothing
    counts = store.restore(record(n) for n in range(1200))
    assert counts == RestoreCounts(added=1199, replaced=0, skipped=1)
    assert store.count() == 1200
