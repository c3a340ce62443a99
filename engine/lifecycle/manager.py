"""`HandoffManager`: the seed 000 lifecycle API over a `Store`, enforced by the shared table.

It owns moving records (legality, history, versions, retries on conflicts); it never keeps
records itself (the store does) and never builds a state machine per record.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from engine.errors import UsageError
from engine.lifecycle.clock import Clock, SteadyClock, utc_clock
from engine.lifecycle.delivery import Deliver, IntactPayloads, deliver_of
from engine.lifecycle.expiry import Deadlines, Expiry, due_window, expired_error, overdue_reason
from engine.lifecycle.moves import MoveOrder, moved
from engine.lifecycle.table import CREATE, Trigger
from engine.lifecycle.transfer import parse_records
from engine.lifecycle.writes import lock_stripes, write_move
from engine.records.models import (
    HandoffRecord,
    HandoffRequest,
    HandoffStatus,
    as_utc,
    build_record,
    new_move,
)
from engine.records.store import RecordQuery, Store
from engine.redaction import DEFAULT_REDACTOR, Redactor
from engine.stores.memory import MemoryStore

if TYPE_CHECKING:
    from engine.observer.seam import Observer

# Hot-path constants: on Python 3.11 enum member lookups on the class go through a descriptor.
_ACCEPT, _REJECT, _START, _COMPLETE, _FAIL, _EXPIRE, _CANCEL = Trigger
_PENDING = HandoffStatus.pending
_SWEEP_BATCH = 500  # records claimed per store transaction by `expire_overdue`


class HandoffManager:
    """Creates handoff records and drives them through the lifecycle (seed 000 API).

    `HandoffManager()` keeps records in memory and never expires them, like the seed. Keyword
    options: `store` (e.g. a `SQLiteStore` shared with other processes), `clock` (default a
    `SteadyClock`: wall-clock time that never runs backwards; a record's move times never
    decrease even on an injected clock that does), `pending_timeout_s` (expiry of pending
    records; None or infinity: never), `deadlines` (`"inform"`: a request's deadline is
    information for the receiver, as in the seed; `"expire"`: a live record past it fails),
    `config_version` and `actor` (written into records and history), `retries` (how often a
    move is re-planned on a `VersionConflict` before it is raised), `redactor` (default
    `DEFAULT_REDACTOR`: secret-looking keys' values and values such as card numbers in a
    request, a result or an import are replaced before anything is stored or exported),
    `deliver` (`"intact"`: the records this manager returns carry the payload as given, as
    seed 000 passed it to the receiver; `"redacted"`: they carry the stored copy).
    Moves of one record serialize (lock stripes in-process, record versions across processes).
    """

    def __init__(
        self,
        *,
        store: Store | None = None,
        clock: Clock | None = None,
        pending_timeout_s: float | None = None,
        deadlines: Deadlines | str = Deadlines.inform,
        config_version: str | None = None,
        actor: str = "",
        retries: int = 3,
        redactor: Redactor = DEFAULT_REDACTOR,
        deliver: Deliver | str = Deliver.intact,
    ) -> None:
        if retries < 0:
            raise UsageError(f"retries must be >= 0, got {retries}")
        self.expiry = Expiry.of(pending_timeout_s, deadlines)
        self.deliver = deliver_of(deliver)
        self.intact = IntactPayloads()
        self.store: Store = MemoryStore() if store is None else store
        self.clock: Clock = SteadyClock() if clock is None else utc_clock(clock)
        self.config_version = config_version
        self.actor = actor
        self.retries = retries
        self.redactor = redactor
        self.observer: Observer | None = None  # told of every move written (Engine.observe)
        self._locks = lock_stripes()

    # -- seed 000 API --------------------------------------------------------------------

    def create_handoff(
        self,
        request: HandoffRequest,
        *,
        config_version: str | None = None,
        actor: str | None = None,
    ) -> HandoffRecord:
        """A new `pending` record with a UUID4 id, stored before it is returned."""
        if not isinstance(request, HandoffRequest):
            raise UsageError(f"create_handoff needs a HandoffRequest, got {type(request)!r}")
        stored = self.redactor.request(request)
        now = self.clock()
        entry = new_move(None, _PENDING, CREATE, now, "", self._actor(actor))
        record = build_record(
            {
                "record_id": str(uuid.uuid4()),
                "request": stored,
                "response": None,
                "status": _PENDING,
                "result": {},
                "created_at": now,
                "updated_at": now,
                "history": (entry,),
                "config_version": config_version or self.config_version,
                "version": 1,
                "failure": None,
            }
        )
        self.store.add(record)
        if self.deliver is Deliver.intact:
            self.intact.keep_request(record.record_id, stored, request)
        return self.delivered(record)

    def accept(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        """pending -> accepted; response "Accepted by receiving agent."."""
        return self.move(record_id, _ACCEPT, actor=actor)

    def start(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        """accepted -> in_progress."""
        return self.move(record_id, _START, actor=actor)

    def complete(
        self, record_id: str, result: dict[str, Any], *, actor: str | None = None
    ) -> HandoffRecord:
        """accepted | in_progress -> completed, storing `result`."""
        return self.move(record_id, _COMPLETE, result=result, actor=actor)

    def reject(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        """pending -> rejected; response `HandoffResponse(accepted=False, reason=reason)`."""
        return self.move(record_id, _REJECT, reason=reason, actor=actor)

    def fail(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        """accepted | in_progress -> failed (failure `error`); response not accepted."""
        return self.move(record_id, _FAIL, reason=reason, actor=actor)

    def get(self, record_id: str) -> HandoffRecord:
        """The record; `RecordNotFound` (a KeyError) for an unknown id."""
        return self.delivered(self.store.get(record_id))

    def list_records(self, status: HandoffStatus | None = None) -> list[HandoffRecord]:
        """Every record, optionally of one status, oldest first."""
        return self.query(RecordQuery(status=status))

    def export(self) -> list[dict[str, Any]]:
        """Every record as a JSON-compatible dict, oldest first."""
        redact = self.redactor.record
        return [redact(record).model_dump(mode="json") for record in self.store.query()]

    def import_records(self, data: Sequence[Any], *, replace: bool = True) -> None:
        """Add records from `export()` output; a record whose id the store holds is overwritten
        (as seed 000 did) unless `replace=False`, which keeps the stored one. All or nothing: an
        invalid item raises `RecordImportError` (a ValueError) naming its index, and nothing is
        added; data that is not a list at all raises `UsageError` (also a ValueError)."""
        self.store.restore(map(self.redactor.record, parse_records(data)), replace=replace)

    # -- additions -----------------------------------------------------------------------

    def cancel(
        self, record_id: str, reason: str = "", *, actor: str | None = None
    ) -> HandoffRecord:
        """Any live state -> failed (failure `cancelled`), e.g. the caller hung up."""
        return self.move(record_id, _CANCEL, reason=reason or "Cancelled.", actor=actor)

    def query(self, query: RecordQuery) -> list[HandoffRecord]:
        """Records by status, agent and time range, paginated, oldest first."""
        return [self.delivered(record) for record in self.store.query(query)]

    def stored_form(self, record: HandoffRecord) -> HandoffRecord:
        """`record` (one this manager returned) as the store holds it: redacted. What events,
        logs and screens must be given instead of a record carrying an intact payload."""
        return self.intact.conceal(record)

    def delivered(
        self, record: HandoffRecord, result: dict[str, Any] | None = None
    ) -> HandoffRecord:
        """`record` (e.g. read from the store) as this manager hands records out: with the
        intact payload it keeps for it when `deliver` is "intact" (`IntactPayloads.deliver`)."""
        return self.intact.deliver(record, result) if self.deliver is Deliver.intact else record

    @property
    def pending_timeout(self) -> timedelta | None:
        """How long a record may stay pending (None: for ever)."""
        return self.expiry.pending_timeout

    def move(
        self,
        record_id: str,
        trigger: Trigger | str,
        *,
        reason: str = "",
        result: dict[str, Any] | None = None,
        actor: str | None = None,
    ) -> HandoffRecord:
        """Apply any trigger of the table (the named methods all come here). A record that is
        overdue (see `expire_overdue`) is expired first, and the move raises `HandoffExpired`."""
        if not isinstance(trigger, Trigger):
            trigger = Trigger(trigger)
        stored = None if result is None else self.redactor.redact(result)
        order = MoveOrder(record_id, trigger, reason, stored, self._actor(actor))
        expired: list[HandoffRecord] = []

        def plan(current: HandoffRecord) -> HandoffRecord:
            now, timeout = self._context()
            gone = None if trigger is _EXPIRE else self._expired(current, now)
            if gone is not None:
                expired.append(gone)
                return gone
            return moved(current, order, (now, timeout))

        record = cast(HandoffRecord, self._apply(record_id, plan))  # plans never return None
        if expired and record is expired[-1]:
            raise expired_error(record, trigger)
        return self.delivered(record, None if stored is result else result)

    def move_many(self, orders: Sequence[MoveOrder]) -> list[HandoffRecord]:
        """Several moves written in one atomic commit, returned only once durable: all are
        applied or none. An illegal one raises `IllegalTransition` before anything is written;
        an overdue record is expired (on its own) and raises `HandoffExpired`, the batch is not
        applied; if another writer moved one of the records meanwhile, `VersionConflict`."""
        context = self._context()
        latest: dict[str, HandoffRecord] = {}
        changes: list[tuple[HandoffRecord, int]] = []
        results: list[dict[str, Any] | None] = []
        for order in orders:
            if not isinstance(order.trigger, Trigger):
                order = order._replace(trigger=Trigger(order.trigger))
            intact = order.result
            if intact is not None:
                order = order._replace(result=self.redactor.redact(intact))
            current = latest.get(order.record_id) or self.store.get(order.record_id)
            if order.trigger is not _EXPIRE and self._expired(current, context[0]) is not None:
                gone = self._apply(current.record_id, lambda c: self._expired(c, context[0]))
                raise expired_error(gone or self.store.get(current.record_id), order.trigger)
            new = moved(current, order, context)
            changes.append((new, current.version))
            results.append(None if order.result is intact else intact)
            latest[order.record_id] = new
        self.store.replace_many(changes)
        moved_records = [record for record, _ in changes]
        if self.observer is not None:
            for record in moved_records:
                self.observer.record_moved(record)
        return [self.delivered(r, i) for r, i in zip(moved_records, results, strict=True)]

    def expire_overdue(self, *, now: datetime | None = None) -> list[HandoffRecord]:
        """Fail (with failure `timeout` or `deadline`) every live record that is overdue:
        pending longer than `pending_timeout_s`, or past its request's deadline when deadlines
        expire (none without either). The store claims each one for a single caller, so
        sweepers on every replica expire it once. Returns the stored (redacted) records."""
        at = self.clock() if now is None else as_utc(now)
        window = due_window(self.expiry, at)
        expired: list[HandoffRecord] = []
        while window is not None:
            batch = self.store.expire_due(
                created_before=window[0], now=window[1],
                expire=lambda current: self._expired(current, at), limit=_SWEEP_BATCH,
            )
            expired += batch
            if self.observer is not None:
                for record in batch:
                    self.observer.record_moved(record)
            if len(batch) < _SWEEP_BATCH:
                break
        return expired

    sweep = expire_overdue

    # -- internals -----------------------------------------------------------------------

    def _actor(self, actor: str | None) -> str:
        return self.actor if actor is None else actor

    def _context(self) -> tuple[datetime, Expiry]:
        return self.clock(), self.expiry

    def _expired(self, current: HandoffRecord, at: datetime) -> HandoffRecord | None:
        why = overdue_reason(current, at, self.expiry)
        if why is None:  # moved on since the store listed it
            return None
        order = MoveOrder(current.record_id, _EXPIRE, why[1], None, self.actor)
        return moved(current, order, (at, self.expiry), failure=why[0])

    def _apply(
        self, record_id: str, plan: Callable[[HandoffRecord], HandoffRecord | None]
    ) -> HandoffRecord | None:
        """`write_move`, then tell the observer (outside the record's lock)."""
        record = write_move(self.store, self._locks, self.retries, record_id, plan)
        if record is not None and self.observer is not None:
            self.observer.record_moved(record)
        return record
