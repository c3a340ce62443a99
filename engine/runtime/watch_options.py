"""The options of a config watcher (`WatchOptions`), each held to its range: how long a burst of
saves is debounced, how long files must settle, how often the set is polled and the watcher
wakes. Pure data: `engine.runtime.watch` does the watching."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import UsageError

_MS_RANGES = {
    "debounce_ms": (1, 5_000),  # the watch checks for a stop this often: keep it prompt
    "max_delay_ms": (1, 60_000),
    "settle_ms": (0, 60_000),
    "tick_ms": (1, 86_400_000),  # a stop does not wait for a tick
}
"""The range of each option in milliseconds."""
MAX_POLL_S = 86_400.0
"""The longest poll interval (a day); NaN and infinity are refused with it."""


@dataclass(frozen=True, slots=True)
class WatchOptions:
    """`debounce_ms`: quiet time that ends a burst of change events; `max_delay_ms`: a burst
    that never goes quiet is still looked at this often. `settle_ms`: the files a reload looks
    at must be unchanged this long before its build (made meanwhile) is swapped in (a
    half-written file is never served if its writer pauses for less; save atomically to be
    safe at any speed). `poll_interval_s`:
    also compare the files' fingerprint this often without events (None: only on events).
    `tick_ms`: how often the watcher wakes to check for stop, poll and folder replacement."""

    debounce_ms: int = 25
    max_delay_ms: int = 1000
    settle_ms: int = 100
    poll_interval_s: float | None = 5.0
    tick_ms: int = 200
    force_polling: bool = False
    switch_interval_s: float | None = 0.001
    """While an async-form build runs on its worker thread, lower the interpreter's GIL switch
    interval to this (default 5 ms) so the event loop waits at most ~1 ms for the GIL; restored
    when the last build ends. None leaves the interpreter's setting alone."""

    def __post_init__(self) -> None:
        for name, (low, high) in _MS_RANGES.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise UsageError(f"{name} must be a whole number from {low} to {high}, "
                                 f"got {value!r}")
        for name in ("poll_interval_s", "switch_interval_s"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int | float)
                                          and 0 < value <= MAX_POLL_S):
                raise UsageError(f"{name} must be None or a number of seconds over 0 and at "
                                 f"most {MAX_POLL_S}, got {value!r}")

    @property
    def settle_s(self) -> float:
        return self.settle_ms / 1000

    def watch_kwargs(self) -> dict[str, Any]:
        return {
            "recursive": False,
            "yield_on_timeout": True,
            "step": self.debounce_ms,
            "debounce": max(self.max_delay_ms, self.debounce_ms),
            "rust_timeout": self.tick_ms,
            "force_polling": self.force_polling or None,
            "poll_delay_ms": min(self.tick_ms, 300),
        }
