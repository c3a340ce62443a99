"""Keeps Python's cyclic garbage collector out of config loads and off served snapshots.

A 10,000-agent load allocates hundreds of thousands of objects that all stay alive: the
collections they trigger find nothing yet walk them all, holding the GIL (seconds per load, and
a stall on the event loop whichever thread triggers one). During a load collections are paused;
a runtime's build then `gc.freeze()`s what is alive into the permanent generation, which
collections never walk. Snapshots hold no reference cycles, so reference counting frees a
replaced one. It never changes what is collected, only when the collector looks.
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
        self._freeze = False

    @contextlib.contextmanager
    def during_build(self, *, freeze: bool) -> Iterator[None]:
        with self._lock:
            if self._builds == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._builds += 1
            self._freeze = self._freeze or freeze
        try:
            yield
        finally:
            with self._lock:
                self._builds -= 1
                if self._builds == 0:
                    if self._freeze:
                        gc.freeze()
                    self._freeze = False
                    if self._was_enabled:
                        gc.enable()


_PAUSE = _Pause()


def collector_paused(*, freeze: bool = False) -> contextlib.AbstractContextManager[None]:
    """Pause cyclic collection while loading; with `freeze` (a runtime's build), freeze what
    is alive when the last load in progress ends."""
    return _PAUSE.during_build(freeze=freeze)
