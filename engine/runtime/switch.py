"""The interpreter's GIL switch interval, lowered while a worker thread builds for an event
loop (so the loop waits at most about that long for the GIL) and restored after the last build.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator


class _SwitchInterval:
    """Lowers `sys.getswitchinterval()` while at least one build holds it; restores it after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._saved = 0.0

    @contextlib.contextmanager
    def lowered(self, interval: float | None) -> Iterator[None]:
        if interval is None:
            yield
            return
        with self._lock:
            if self._holders == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(interval, self._saved))
            self._holders += 1
        try:
            yield
        finally:
            with self._lock:
                self._holders -= 1
                if self._holders == 0:
                    sys.setswitchinterval(self._saved)


_SWITCH = _SwitchInterval()
switch_interval_lowered = _SWITCH.lowered
"""`with switch_interval_lowered(0.001):` around work a worker thread does for an event loop."""
