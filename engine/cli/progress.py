"""A progress line for long CLI runs: on a terminal, one line on stderr rewritten at most a few
times a second and erased at the end; nothing at all when stderr is not a terminal (CI logs,
pipes). It only prints; it never decides what is done."""

from __future__ import annotations

import sys
import time
from typing import TextIO

MIN_FILES = 200
"""Sets with fewer files finish before a line would be worth reading."""
INTERVAL_S = 0.25


class ProgressLine:
    """`update(done, total)` from the pipeline's `progress` hook; `close()` erases the line."""

    def __init__(self, label: str, *, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self.label = label
        self._shown = 0.0
        self._width = 0

    def update(self, done: int, total: int, *, what: str = "") -> None:
        now = time.monotonic()
        if not self.enabled or total < MIN_FILES or now - self._shown < INTERVAL_S:
            return
        self._shown = now
        label = f"{self.label} {what}" if what else self.label
        text = f"{label}: {done:,}/{total:,} files ({done * 100 // total}%)"
        self._width = max(self._width, len(text))
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()

    def close(self) -> None:
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
