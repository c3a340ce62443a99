"""How long the suite waits for something that must happen: a bound that only catches a hang.

A test waits for an event (a reload, a line of output, a child process) until it happens; this
bound exists so that a hang fails the run instead of stalling it. It is never a verdict on speed:
a loaded 2-core machine stays far inside it. Where a test proves that something does *not* wait
(a stop that skips a tick), the thing it must not wait for is made longer than this bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANG_S = 600.0  # ten minutes: far beyond any wait of a healthy run, however busy the machine


def wait_until(predicate: Callable[[], object], what: str, *, timeout: float = HANG_S) -> None:
    """Poll `predicate` until it is true; fail naming `what` after `timeout` seconds (a hang,
    never a verdict on speed)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)
