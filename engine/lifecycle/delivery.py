"""Delivering a handoff's payload intact while its stored copy is redacted.

Seed 000 passes a request's `context` to the receiver and a `complete` result back as given.
Stores, exports, logs and screens get the redacted copy; the manager keeps the intact payload
of the records whose copy it redacted in this process's memory only (never in a store), and
hands it back on the records it returns. Pure bookkeeping: it never redacts or stores.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from typing import Any

from engine.choices import member_of
from engine.records.models import HandoffRecord, HandoffRequest, HandoffStatus, evolve

KEPT_RECORDS = 10_000
"""How many records' intact payloads a manager keeps at most; the oldest is dropped first (a
record read after that comes back as stored, redacted)."""


class Deliver(str, enum.Enum):
    """What the records a manager returns carry under secret keys."""

    intact = "intact"  # the values the caller gave (seed 000); only the stored copy is redacted
    redacted = "redacted"  # the stored copy: the receiver never sees a secret


def deliver_of(value: Deliver | str) -> Deliver:
    """`value` as a `Deliver`; a `UsageError` naming the choices otherwise."""
    return member_of(Deliver, value, "deliver")


@dataclass(slots=True)
class _Kept:
    """One record's payload as stored and as given (None: that part had nothing redacted)."""

    request: tuple[HandoffRequest, HandoffRequest] | None = None
    result: tuple[dict[str, Any], dict[str, Any]] | None = None


class IntactPayloads:
    """The intact request and result of records whose stored copy was redacted.

    `deliver(record)` puts them back into a stored record, `conceal(record)` takes them out
    again (for events and observers). A part is swapped only while the record still holds the
    stored copy it replaces, so a record moved by another process is never given stale data.
    Thread-safe; at most `limit` records are kept, the oldest dropped first.
    """

    def __init__(self, *, limit: int = KEPT_RECORDS) -> None:
        self._kept: dict[str, _Kept] = {}
        self._limit = limit
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def keep_request(self, record_id: str, stored: HandoffRequest, intact: HandoffRequest) -> None:
        if stored is not intact:
            self._entry(record_id).request = (stored, intact)

    def keep_result(
        self, record_id: str, stored: dict[str, Any], intact: dict[str, Any]
    ) -> None:
        if stored is not intact:
            self._entry(record_id).result = (stored, intact)

    def deliver(
        self, record: HandoffRecord, result: dict[str, Any] | None = None
    ) -> HandoffRecord:
        """`record` with its intact payload, if this process kept one; else `record`.
        `result`: the intact result of the `complete` that wrote `record`, kept first."""
        if result is not None and record.status is HandoffStatus.completed:
            self.keep_result(record.record_id, record.result, result)
        kept = self._kept.get(record.record_id)
        if kept is None:
            return record
        changes: dict[str, Any] = {}
        if kept.request is not None and _same(record.request, kept.request[0]):
            changes["request"] = kept.request[1]
        if kept.result is not None and _same(record.result, kept.result[0]):
            changes["result"] = kept.result[1]
        return evolve(record, changes) if changes else record

    def conceal(self, record: HandoffRecord) -> HandoffRecord:
        """The stored form of a record `deliver` returned (itself if it held nothing kept)."""
        kept = self._kept.get(record.record_id)
        if kept is None:
            return record
        changes: dict[str, Any] = {}
        if kept.request is not None and record.request is kept.request[1]:
            changes["request"] = kept.request[0]
        if kept.result is not None and record.result is kept.result[1]:
            changes["result"] = kept.result[0]
        return evolve(record, changes) if changes else record

    def _entry(self, record_id: str) -> _Kept:
        with self._lock:
            kept = self._kept.get(record_id)
            if kept is None:
                kept = self._kept[record_id] = _Kept()
                while len(self._kept) > self._limit:
                    del self._kept[next(iter(self._kept))]
            return kept


def _same(value: Any, stored: Any) -> bool:
    return value is stored or value == stored
