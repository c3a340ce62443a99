"""The `Store` protocol every record store implements, and the query it answers.

Stores keep frozen `HandoffRecord`s and enforce optimistic concurrency on `version`; they
never decide which moves are legal (that is the lifecycle table's job).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from engine.errors import RecordNotFound, UsageError
from engine.records.models import HandoffRecord, HandoffStatus, as_utc

MAX_ROWS = 2**63 - 1
"""The largest limit or offset a query takes: the stores' databases count rows in 64 bits."""


@dataclass(frozen=True, slots=True)
class RecordQuery:
    """Filters for `Store.query`; results are oldest first (created_at, then insertion).

    `agent` matches the sender or the receiver; `since` is inclusive and `until` exclusive,
    both on `created_at` (naive means UTC). `limit`/`offset` paginate.
    """

    status: HandoffStatus | None = None
    agent: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int | None = None
    offset: int = 0

    def __post_init__(self) -> None:
        if self.limit is not None and not 0 <= self.limit <= MAX_ROWS:
            raise UsageError(f"query limit must be between 0 and {MAX_ROWS}, got {self.limit}")
        if not 0 <= self.offset <= MAX_ROWS:
            raise UsageError(f"query offset must be between 0 and {MAX_ROWS}, got {self.offset}")
        if self.since is not None:
            object.__setattr__(self, "since", as_utc(self.since))
        if self.until is not None:
            object.__setattr__(self, "until", as_utc(self.until))

    def matches(self, record: HandoffRecord) -> bool:
        """True if `record` passes every filter (pagination aside)."""
        if self.status is not None and record.status != self.status:
            return False
        request = record.request
        if self.agent is not None and self.agent not in (request.from_agent, request.to_agent):
            return False
        if self.since is not None and record.created_at < self.since:
            return False
        return self.until is None or record.created_at < self.until


ALL = RecordQuery()


@dataclass(frozen=True, slots=True)
class RestoreCounts:
    """What `Store.restore` did: records `added` (ids the store did not hold), `replaced` (ids
    it held, overwritten on request) and `skipped` (ids it held, kept as they were)."""

    added: int = 0
    replaced: int = 0
    skipped: int = 0

    @property
    def written(self) -> int:
        return self.added + self.replaced


def sql_filter(
    query: RecordQuery, *, mark: str, created: str, moment: Callable[[datetime], Any]
) -> tuple[str, list[Any]]:
    """`query`'s filters as SQL for stores with `status`, `from_agent` and `to_agent` columns:
    (" WHERE ..." or "", parameters). `mark` is the driver's placeholder, `created` the
    creation-time column, `moment` turns a time into that column's value."""
    clauses: list[str] = []
    params: list[Any] = []
    if query.status is not None:
        clauses.append(f"status = {mark}")
        params.append(query.status.value)
    if query.agent is not None:
        clauses.append(f"(from_agent = {mark} OR to_agent = {mark})")
        params += [query.agent, query.agent]
    if query.since is not None:
        clauses.append(f"{created} >= {mark}")
        params.append(moment(query.since))
    if query.until is not None:
        clauses.append(f"{created} < {mark}")
        params.append(moment(query.until))
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

Expire = Callable[[HandoffRecord], "HandoffRecord | None"]
"""Turns a claimed overdue record into its expired copy (one version higher), or None to
leave it as it is. Pure and quick: a store calls it while it holds the record."""


@runtime_checkable
class Store(Protocol):
    """Where records live. Every implementation passes tests/unit/stores/test_contract.py."""

    @property
    def location(self) -> str:
        """Where the records are, for messages (a path, or ":memory:")."""
        ...

    def add(self, record: HandoffRecord) -> None:
        """Store a new record; VersionConflict(expected=0) if its id already exists."""
        ...

    def get(self, record_id: str) -> HandoffRecord:
        """The record with this id; RecordNotFound if there is none."""
        ...

    def latest(self, record_id: str) -> HandoffRecord:
        """The record as this store last saw it: may be stale if another process wrote it
        since, which `replace` then reports as a VersionConflict. For writers only."""
        ...

    def replace(self, record: HandoffRecord, *, expected_version: int) -> None:
        """Overwrite the record with the same id if it is still at `expected_version`;
        VersionConflict if another writer got there first, RecordNotFound if it is gone."""
        ...

    def replace_many(self, changes: Sequence[tuple[HandoffRecord, int]]) -> None:
        """Several `(record, expected_version)` replacements, all or nothing, one commit."""
        ...

    def put_many(self, records: Iterable[HandoffRecord]) -> int:
        """Insert or overwrite records, all or nothing; the count (`restore` with `replace`)."""
        ...

    def restore(
        self, records: Iterable[HandoffRecord], *, replace: bool = False
    ) -> RestoreCounts:
        """Write records from an export, all or nothing, in one commit: an id the store does
        not hold is added; one it holds is overwritten only with `replace`, else kept as it is.
        `records` is read as writing goes (an import never holds them all); if reading it
        raises, nothing is written."""
        ...

    def query(self, query: RecordQuery = ALL) -> list[HandoffRecord]:
        """Records matching `query`, oldest first, paginated."""
        ...

    def count(self, query: RecordQuery = ALL) -> int:
        """How many records match `query`, ignoring pagination."""
        ...

    def ids_with_prefix(self, prefix: str, *, limit: int) -> list[str]:
        """Record ids that start with `prefix` (case-sensitive), sorted, at most `limit`: what
        resolves the short ids operators copy from logs (see `resolve_record_id`)."""
        ...

    def due(self, *, created_before: datetime, now: datetime) -> list[HandoffRecord]:
        """Overdue candidates: pending records created before `created_before`, and live
        records whose request deadline is at or before `now`. Oldest first."""
        ...

    def expire_due(
        self, *, created_before: datetime, now: datetime, expire: Expire, limit: int = 500
    ) -> list[HandoffRecord]:
        """Claim up to `limit` of the records `due` lists (oldest first) that no other caller
        holds, write `expire(record)` for each in one commit, and return what was written.
        Each due record is expired by exactly one caller, even with sweepers in several
        processes or replicas running at once."""
        ...

    def close(self) -> None:
        """Release files and connections; further use is an error."""
        ...


SHORTEST_PREFIX = 4
"""A short id must have at least this many characters (as git asks of abbreviated hashes)."""
SHOWN_MATCHES = 10


def resolve_record_id(store: Store, given: str) -> str:
    """The full id of the record `given` names: its id, or a unique prefix of one.

    RecordNotFound when nothing matches; UsageError listing the matches when several do.
    """
    try:
        return store.get(given).record_id
    except RecordNotFound:
        if len(given) < SHORTEST_PREFIX:
            raise
    matches = store.ids_with_prefix(given, limit=SHOWN_MATCHES + 1)
    if not matches:
        raise RecordNotFound(given)
    if len(matches) > 1:
        listed = ", ".join(matches[:SHOWN_MATCHES])
        more = ", ..." if len(matches) > SHOWN_MATCHES else ""
        raise UsageError(f"record id prefix {given!r} is ambiguous: it matches {listed}{more}")
    return matches[0]


def prefix_upper_bound(prefix: str) -> str | None:
    """The smallest string above every string that starts with `prefix` (code point order,
    which is also UTF-8 byte order), or None when there is none to compute simply."""
    last = ord(prefix[-1]) if prefix else 0x10FFFF
    if last >= 0x10FFFF or 0xD7FF <= last <= 0xDFFF:
        return None
    return prefix[:-1] + chr(last + 1)


def is_due(record: HandoffRecord, *, created_before: datetime, now: datetime) -> bool:
    """The `Store.due` predicate, shared by implementations that filter in Python."""
    if not record.is_live:
        return False
    if record.status is HandoffStatus.pending and record.created_at < created_before:
        return True
    deadline = record.request.deadline
    return deadline is not None and deadline <= now
