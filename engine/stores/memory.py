"""`MemoryStore`: records in a dict, for tests, embedding and the seed's default manager.

Thread-safe and versioned like every store, with a change feed; nothing survives the process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from engine.errors import RecordNotFound, VersionConflict
from engine.records.limits import check_storable
from engine.records.models import HandoffRecord
from engine.records.store import ALL, Expire, RecordQuery, RestoreCounts, is_due
from engine.stores.changes import OnChange, OnResync, Subscribers


class MemoryStore:
    """The in-memory `Store`: a dict of record id -> record, guarded by one lock."""

    location = ":memory:"
    sees_every_writer = True  # the dict is private: every write goes through this object

    def __init__(self) -> None:
        self._records: dict[str, HandoffRecord] = {}
        self._lock = threading.Lock()
        self._subscribers = Subscribers()

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: HandoffRecord) -> None:
        check_storable(record)
        with self._lock:
            existing = self._records.get(record.record_id)
            if existing is not None:
                raise VersionConflict(record.record_id, 0, existing.version)
            self._records[record.record_id] = record
        self._subscribers.publish_records((record,))

    def get(self, record_id: str) -> HandoffRecord:
        try:
            return self._records[record_id]
        except KeyError:
            raise RecordNotFound(record_id) from None

    latest = get  # nothing else writes to this dict: never stale

    def ids_with_prefix(self, prefix: str, *, limit: int) -> list[str]:
        with self._lock:
            found = sorted(key for key in self._records if key.startswith(prefix))
        return found[:limit]

    def replace(self, record: HandoffRecord, *, expected_version: int) -> None:
        check_storable(record, new=False)
        with self._lock:
            self._check(record.record_id, expected_version)
            self._records[record.record_id] = record
        self._subscribers.publish_records((record,))

    def replace_many(self, changes: Sequence[tuple[HandoffRecord, int]]) -> None:
        for record, _ in changes:
            check_storable(record, new=False)
        with self._lock:
            expected: dict[str, int] = {}
            for record, version in changes:  # a record may move twice in one batch
                expected.setdefault(record.record_id, version)
            for record_id, version in expected.items():
                self._check(record_id, version)
            for record, _ in changes:
                self._records[record.record_id] = record
        self._subscribers.publish_records(record for record, _ in changes)

    def _check(self, record_id: str, expected_version: int) -> None:
        current = self._records.get(record_id)
        if current is None:
            raise RecordNotFound(record_id)
        if current.version != expected_version:
            raise VersionConflict(record_id, expected_version, current.version)

    def put_many(self, records: Iterable[HandoffRecord]) -> int:
        return self.restore(records, replace=True).written

    def restore(
        self, records: Iterable[HandoffRecord], *, replace: bool = False
    ) -> RestoreCounts:
        staged: dict[str, HandoffRecord] = {}
        for record in records:
            check_storable(record)
            staged[record.record_id] = record
        with self._lock:
            held = [record_id for record_id in staged if record_id in self._records]
            if not replace:
                for record_id in held:
                    del staged[record_id]
            self._records.update(staged)
        self._subscribers.publish_records(staged.values())
        if replace:
            return RestoreCounts(added=len(staged) - len(held), replaced=len(held))
        return RestoreCounts(added=len(staged), skipped=len(held))

    def query(self, query: RecordQuery = ALL) -> list[HandoffRecord]:
        found = self._matching(query)
        end = None if query.limit is None else query.offset + query.limit
        return found[query.offset : end]

    def count(self, query: RecordQuery = ALL) -> int:
        return len(self._matching(query))

    def _matching(self, query: RecordQuery) -> list[HandoffRecord]:
        with self._lock:
            records = list(self._records.values())
        found = [record for record in records if query.matches(record)]
        found.sort(key=lambda record: record.created_at)  # stable: insertion order breaks ties
        return found

    def due(self, *, created_before: datetime, now: datetime) -> list[HandoffRecord]:
        with self._lock:
            records = list(self._records.values())
        found = [r for r in records if is_due(r, created_before=created_before, now=now)]
        found.sort(key=lambda record: record.created_at)
        return found

    def expire_due(
        self, *, created_before: datetime, now: datetime, expire: Expire, limit: int = 500
    ) -> list[HandoffRecord]:
        with self._lock:  # claims and writes in one critical section: exactly once
            records = list(self._records.values())
            due = [r for r in records if is_due(r, created_before=created_before, now=now)]
            due.sort(key=lambda record: record.created_at)
            written = []
            for current in due[:limit]:
                new = expire(current)
                if new is not None:
                    check_storable(new, new=False)
                    self._records[new.record_id] = new
                    written.append(new)
        self._subscribers.publish_records(written)
        return written

    def subscribe(
        self, on_change: OnChange, *, on_resync: OnResync | None = None
    ) -> Callable[[], None]:
        return self._subscribers.add(on_change, on_resync)

    def close(self) -> None:
        """Nothing to release; kept for the protocol."""
