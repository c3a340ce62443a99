"""Keeps Python's cyclic garbage collector off the snapshots a runtime serves.

A 10,000-agent snapshot is hundreds of thousands of objects; a full collection walks them all
while holding the GIL (hundreds of ms: a stall on the event loop, whichever thread triggered
it). During a build collections are paused; after it `gc.freeze()` moves every object alive
into the permanent generation, which collections never walk. A snapshot's objects are freed
by reference counting when it is replaced (snapshots hold no reference cycles). It never
changes what is collected, only when the collector looks.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


class _Pause:
    """Counts builds in progress (several reloaders may build at once): collection resumes,
    after one freeze, when the last of them ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._builds = 0
        self._was_enabled = False

    @contextlib.contextmanager
    def during_build(self) -> Iterator[None]:
        with self._lock:
            if self._builds == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._builds += 1
        try:
            yield
        finally:
            with self._lock:
                self._builds -= 1
                if self._builds == 0:
                    gc.freeze()
                    if self._was_enabled:
                        gc.enable()


_PAUSE = _Pause()


def collector_paused() -> contextlib.AbstractContextManager[None]:
    """Pause cyclic collection while building; freeze what is alive when the last build ends."""
    return _PAUSE.during_build()
