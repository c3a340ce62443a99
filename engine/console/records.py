"""Searching the handoff records of a store and reading one record's lifecycle timeline.

Reads through the `Store` protocol only (`query`, `count`, `get`) and never writes. Every
record passes the built-in secret key words and the serving config's policy before it is shown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.errors import UsageError
from engine.records.models import HandoffRecord, HandoffStatus, parse_utc
from engine.records.store import RecordQuery, Store
from engine.redaction import Redactor
from engine.runtime.session import SESSION_KEY
from engine.stores.locations import SQLITE_URL, sqlite_path
from engine.stores.sqlite import SQLiteStore

PAGE_SIZE = 50
MAX_PAGE = 1_000_000_000
"""The highest page number asked for: far past the last page of any store, and few enough
digits that reading it is cheap (`int` refuses over 4300 digits)."""
SHOWN = 40
"""Characters of a refused parameter quoted back in the search error."""
SESSION_SCAN = 20_000
"""Records read at most to answer a session search (newest first)."""
SECRET_KEYS = Redactor(values=False)
"""Applied to every record shown, whatever the config: a store may hold records written
without redaction. Secret-looking values are hidden as the serving config says."""


def open_store(location: str) -> Store:
    """The store at `location` (a SQLite file path or a `sqlite:///path` URL), read-only."""
    if "://" in location and location[:len(SQLITE_URL)].lower() != SQLITE_URL:
        raise UsageError(f"--store {location!r}: expected a SQLite store file or sqlite:/// URL")
    return SQLiteStore(Path(sqlite_path(location)), readonly=True, create=False)


@dataclass(frozen=True, slots=True)
class Search:
    """The records page's filters, as read from the query string."""

    status: HandoffStatus | None = None
    agent: str = ""
    session: str = ""
    since: datetime | None = None
    until: datetime | None = None
    page: int = 1

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> Search:
        """Filters from query parameters; a malformed one is a `UsageError` naming it."""
        status = params.get("status") or None
        if status is not None and status not in HandoffStatus.__members__:
            raise UsageError(f"status {_shown(status)}: expected one of "
                             f"{', '.join(HandoffStatus.__members__)}")
        return cls(
            status=None if status is None else HandoffStatus(status),
            agent=params.get("agent", "").strip(),
            session=params.get("session", "").strip(),
            since=_moment("since", params.get("since", "")),
            until=_moment("until", params.get("until", "")),
            page=_page(params.get("page") or "1"),
        )

    def query(self, *, limit: int | None = None, offset: int = 0) -> RecordQuery:
        return RecordQuery(status=self.status, agent=self.agent or None, since=self.since,
                           until=self.until, limit=limit, offset=offset)


def _page(text: str) -> int:
    """A page number from 1 to `MAX_PAGE`, in ASCII digits: `str.isdigit` alone also takes
    '²' and '①', which `int` then refuses."""
    digits = text.isascii() and text.isdigit() and len(text) <= len(str(MAX_PAGE))
    if not digits or not 1 <= int(text) <= MAX_PAGE:
        raise UsageError(f"page {_shown(text)}: expected a whole number from 1 to {MAX_PAGE}")
    return int(text)


def _moment(name: str, text: str) -> datetime | None:
    """An ISO 8601 time (as a `datetime-local` input sends it) in UTC, naive meaning UTC, read
    as `handoff records list --since` reads it (`parse_utc`): a time with no UTC form (year 1
    at +14:00) is refused here rather than failing the store query."""
    if not text.strip():
        return None
    try:
        return parse_utc(text)
    except ValueError as error:
        raise UsageError(f"{name} {_shown(text)}: {error}") from None


def _shown(text: str) -> str:
    """`text` quoted for an error message, cut to `SHOWN` characters (a query string can
    be long)."""
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


@dataclass(frozen=True, slots=True)
class Page:
    """One page of results, newest first. `scanned_all` is False when a session search
    stopped after `SESSION_SCAN` records."""

    records: list[HandoffRecord]
    total: int
    page: int
    pages: int
    scanned_all: bool = True


@dataclass(slots=True)
class RecordsView:
    """The records a store holds, redacted with `redactor` (after `SECRET_KEYS`)."""

    store: Store
    redactor: Redactor = field(default_factory=Redactor)

    def redacted(self, record: HandoffRecord) -> HandoffRecord:
        return self.redactor.record(SECRET_KEYS.record(record))

    def get(self, record_id: str) -> HandoffRecord:
        return self.redacted(self.store.get(record_id))

    def search(self, search: Search) -> Page:
        if search.session:
            return self._by_session(search)
        total = self.store.count(search.query())
        pages = max(1, -(-total // PAGE_SIZE))
        end = total - (search.page - 1) * PAGE_SIZE  # newest first: page 1 is the end
        start = max(0, end - PAGE_SIZE)
        found = self.store.query(search.query(limit=max(0, end - start), offset=start)) \
            if end > 0 else []
        return Page([self.redacted(r) for r in reversed(found)], total, search.page, pages)

    def _by_session(self, search: Search) -> Page:
        matched, complete = [], True
        for scanned, record in enumerate(self._newest_first(search), 1):
            if scanned > SESSION_SCAN:
                complete = False
                break
            if str(record.request.context.get(SESSION_KEY, "")) == search.session:
                matched.append(record)
        pages = max(1, -(-len(matched) // PAGE_SIZE))
        shown = matched[(search.page - 1) * PAGE_SIZE: search.page * PAGE_SIZE]
        return Page([self.redacted(r) for r in shown], len(matched), search.page, pages,
                    complete)

    def _newest_first(self, search: Search) -> Iterator[HandoffRecord]:
        end = self.store.count(search.query())
        while end > 0:
            start = max(0, end - PAGE_SIZE * 10)
            yield from reversed(self.store.query(search.query(limit=end - start, offset=start)))
            end = start


@dataclass(frozen=True, slots=True)
class Step:
    """One move of a record's timeline, with the time since the move before."""

    at: datetime
    trigger: str
    source: str
    dest: str
    actor: str
    reason: str
    after: str


def timeline(record: HandoffRecord) -> list[Step]:
    steps, previous = [], None
    for move in record.history:
        after = "" if previous is None else _duration((move.at - previous).total_seconds())
        steps.append(Step(move.at, move.trigger, move.from_.value if move.from_ else "",
                          move.to.value, move.actor, move.reason, after))
        previous = move.at
    return steps


def _duration(seconds: float) -> str:
    if seconds < 1:
        return f"+{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"+{seconds:.1f} s"
    if seconds < 7200:
        return f"+{seconds / 60:.1f} min"
    return f"+{seconds / 3600:.1f} h"
