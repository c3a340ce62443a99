"""When a live handoff expires: the pending timeout and what a request's deadline means.

Seed 000 has no timeouts and documents `deadline` as information for the receiver, so by
default nothing expires; a manager (or an engine's config) opts in. Pure: nothing here reads or
writes a store or a clock.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from engine.choices import member_of
from engine.errors import HandoffExpired, UsageError
from engine.lifecycle.table import Trigger
from engine.records.models import FailureReason, HandoffRecord, HandoffStatus

EARLIEST = datetime(1, 1, 1, tzinfo=timezone.utc)
"""A cut-off nothing is before: a store query with it finds no record by that limit."""
LONGEST_TIMEOUT_S = timedelta.max.total_seconds()
"""The longest finite timeout a `timedelta` holds (about 2.7 million years)."""


class Deadlines(str, enum.Enum):
    """What a request's `deadline` does."""

    inform = "inform"  # seed 000: information for the receiver; the record never expires by it
    expire = "expire"  # a live record past its deadline fails with failure `deadline`


@dataclass(frozen=True, slots=True)
class Expiry:
    """The expiry policy of a manager: `pending_timeout` (None: a pending record waits for
    ever) and `deadlines`. `Expiry()` expires nothing, as seed 000."""

    pending_timeout: timedelta | None = None
    deadlines: Deadlines = Deadlines.inform

    @property
    def never(self) -> bool:
        """True when no record can ever expire under this policy."""
        return self.pending_timeout is None and self.deadlines is Deadlines.inform

    @classmethod
    def of(cls, pending_timeout_s: float | None, deadlines: Deadlines | str) -> Expiry:
        """The policy from user values: `pending_timeout_s` None or infinity means never;
        zero, a negative number, NaN or a non-number is a `UsageError` naming the value."""
        return cls(_timeout(pending_timeout_s), _deadlines(deadlines))


def _timeout(seconds: float | None) -> timedelta | None:
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise UsageError(f"pending_timeout_s must be a number of seconds or None (never), "
                         f"got {seconds!r}")
    if math.isnan(seconds) or seconds <= 0:
        raise UsageError(f"pending_timeout_s must be > 0 (None or inf: never), got {seconds!r}")
    if seconds >= LONGEST_TIMEOUT_S:  # infinity, or beyond what a timedelta holds
        return None
    return timedelta(seconds=seconds)


def _deadlines(value: Deadlines | str) -> Deadlines:
    return member_of(Deadlines, value, "deadlines")


def overdue_reason(
    record: HandoffRecord, now: datetime, expiry: Expiry
) -> tuple[FailureReason, str] | None:
    """Why `record` should expire at `now` (deadline first), or None if it is not overdue."""
    if expiry.never or not record.is_live:
        return None
    deadline = record.request.deadline
    if expiry.deadlines is Deadlines.expire and deadline is not None and deadline <= now:
        return FailureReason.deadline, f"Past the request deadline {deadline.isoformat()}."
    timeout = expiry.pending_timeout
    if (timeout is not None and record.status is HandoffStatus.pending
            and now - record.created_at > timeout):
        return FailureReason.timeout, f"Pending for more than {timeout.total_seconds():g}s."
    return None


def due_window(expiry: Expiry, at: datetime) -> tuple[datetime, datetime] | None:
    """(created_before, now) for `Store.expire_due` at `at`, or None when nothing can be due.

    A limit the policy does not apply gets `EARLIEST`, so the store's query finds nothing by
    it (a record it lists anyway is re-checked by `overdue_reason` before it is written)."""
    if expiry.never:
        return None
    timeout = expiry.pending_timeout
    created_before = EARLIEST if timeout is None else _minus(at, timeout)
    now = at if expiry.deadlines is Deadlines.expire else EARLIEST
    return created_before, now


def _minus(at: datetime, timeout: timedelta) -> datetime:
    """`at - timeout`, or `EARLIEST` when that is before year 1 (nothing was created then)."""
    try:
        return at - timeout
    except OverflowError:
        return EARLIEST


def expired_error(record: HandoffRecord, trigger: Trigger) -> HandoffExpired:
    """The error for `trigger` asked of `record`, which was just expired instead."""
    failure = record.failure.value if record.failure is not None else "timeout"
    return HandoffExpired(
        record.record_id, trigger.value, failure, record.history[-1].reason, record
    )
