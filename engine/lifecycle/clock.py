"""`SteadyClock`: the lifecycle's default time source, wall-clock time that never goes back.

It reads the wall clock for humans and a monotonic clock for order; it keeps no records and
knows nothing of moves (the per-record floor lives in `moves.moved`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone

from engine.records.models import as_utc

Clock = Callable[[], datetime]
"""Returns the current time (default: a `SteadyClock`); a naive time is read as UTC."""


def wait_limit(seconds: float | None) -> float | None:
    """`seconds` for a thread wait or join: None (no limit) for None or infinity, which the
    threading module cannot take (`OverflowError`), else `seconds`."""
    return None if seconds is None or seconds == math.inf else seconds


def utc_clock(clock: Clock) -> Clock:
    """`clock` with its readings in UTC (a naive reading is taken to be UTC already)."""
    return lambda: as_utc(clock())


class SteadyClock:
    """UTC wall-clock time that never runs backwards.

    Each reading is the wall clock, unless the wall clock is behind the previous reading plus
    the monotonic time elapsed since (it was stepped back, by NTP or by hand): then the clock
    keeps counting from that reading at the monotonic pace until the wall clock catches up.
    A forward step is followed at once. `wall` and `monotonic` are injectable for tests.
    """

    def __init__(
        self,
        *,
        wall: Callable[[], datetime] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._wall: Callable[[], float] = (
            time.time if wall is None else (lambda: as_utc(wall()).timestamp())
        )
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._anchor = -math.inf
        self._anchor_mono = 0.0

    def __call__(self) -> datetime:
        wall = self._wall()
        mono = self._monotonic()
        with self._lock:
            steady = self._anchor + (mono - self._anchor_mono)
            if steady > wall:
                wall = steady
            else:
                self._anchor, self._anchor_mono = wall, mono
        return datetime.fromtimestamp(wall, timezone.utc)
