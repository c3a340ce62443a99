"""Writing one planned move to a store: under the record's lock stripe, re-planned on a stale
copy or a concurrent writer's version, at most `retries` more times.

It decides nothing about legality or expiry (the plan does) and keeps no records.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from engine.errors import IllegalTransition, VersionConflict
from engine.records.models import HandoffRecord
from engine.records.store import Store

Plan = Callable[[HandoffRecord], "HandoffRecord | None"]
"""The moved copy of the current record, None to write nothing, or IllegalTransition."""
LOCK_STRIPES = 64


def lock_stripes() -> tuple[threading.Lock, ...]:
    """The locks one manager serializes moves of one record with (a record's: its id's hash)."""
    return tuple(threading.Lock() for _ in range(LOCK_STRIPES))


def write_move(
    store: Store, locks: tuple[threading.Lock, ...], retries: int, record_id: str, plan: Plan
) -> HandoffRecord | None:
    """Plan and write one move under the record's lock stripe. The first try may plan on
    the store's last-seen copy (`latest`); if that copy was stale, the write conflicts or
    the plan refuses, and every later try re-reads the record (`retries` times)."""
    with locks[hash(record_id) % len(locks)]:
        for attempt in range(retries + 2):
            fresh = attempt > 0
            current = store.get(record_id) if fresh else store.latest(record_id)
            try:
                new = plan(current)
            except IllegalTransition:
                if fresh or store.get(record_id) is current:
                    raise  # refused on what the store really holds
                continue
            if new is None:
                return None
            try:
                store.replace(new, expected_version=current.version)
            except VersionConflict:
                if attempt > retries:
                    raise
                continue
            return new
    raise AssertionError("unreachable")  # pragma: no cover
