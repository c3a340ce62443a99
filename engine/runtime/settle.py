"""Settling: waiting until the files of a set have been quiet long enough to build, read from
the files' own times (a look's `FileState`)."""

from __future__ import annotations

import time

from engine.loading.incremental.look import FileState


def wait_quiet(state: FileState, quiet_s: float, *, deadline: float) -> bool:
    """Sleep until no file of `state` changed for `quiet_s` seconds; False (without sleeping)
    when that would pass `deadline` (a `time.monotonic()` value).

    The quiet time is read from the files' own times, so a set untouched for longer never
    waits; a time in the future (clock skew) is never trusted beyond one full quiet period.
    """
    wait = min(quiet_s - (time.time() - state.newest), quiet_s)
    if wait <= 0:
        return True
    if time.monotonic() + wait > deadline:
        return False
    time.sleep(wait)
    return True
