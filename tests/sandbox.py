"""Test helpers for hostile input: record what a call opens or connects to, and run code that
might hang in a child process with a deadline (a regression fails instead of hanging CI)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.patience import HANG_S

REPO = Path(__file__).resolve().parent.parent
_RUNTIME = tuple(
    os.path.realpath(folder)
    for folder in {sys.prefix, sys.base_prefix, sys.exec_prefix, str(REPO / "engine"),
                   str(REPO / "schemas")}
)


@dataclass
class Activity:
    """Files opened, folders listed and network calls made while a `watch()` block ran."""

    opened: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    network: list[tuple[str, Any]] = field(default_factory=list)

    def outside(self, *roots: str | os.PathLike[str]) -> list[str]:
        """Paths opened or listed that resolve neither inside `roots` nor in the Python
        installation or the engine's own package (imports, bundled schemas)."""
        allowed = tuple(os.path.realpath(root) for root in roots) + _RUNTIME
        return [
            path
            for path in self.opened + self.listed
            if not any(_inside(os.path.realpath(path), root) for root in allowed)
        ]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


_ACTIVE: list[Activity] = []
_LOCK = threading.Lock()
_NETWORK = ("socket.connect", "socket.getaddrinfo", "socket.sendto", "urllib.Request")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _ACTIVE:
        return
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _ACTIVE[-1].opened.append(os.fsdecode(args[0]))
    elif event in ("os.listdir", "os.scandir") and isinstance(args[0], (str, bytes, os.PathLike)):
        _ACTIVE[-1].listed.append(os.fsdecode(args[0]))
    elif event in _NETWORK:
        _ACTIVE[-1].network.append((event, args))


sys.addaudithook(_hook)  # audit hooks cannot be removed: this one only records inside watch()


@contextlib.contextmanager
def watch() -> Iterator[Activity]:
    """Record the files opened, folders listed and network calls made inside the block."""
    activity = Activity()
    with _LOCK:
        _ACTIVE.append(activity)
    try:
        yield activity
    finally:
        with _LOCK:
            _ACTIVE.remove(activity)


def run_python(code: str, *, timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter from the repository root; a hang past `timeout`
    seconds kills it and fails the calling test with what it printed so far."""
    try:
        return subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"still running after {timeout} s (hang): {error.output!r}") from None


class RecordingServer:
    """A local HTTP server (127.0.0.1, a free port) that answers every GET with a schema and
    records the path: `with RecordingServer() as server: ... server.hits`. It listens from
    `with` to its end only (a module that builds one at import, and is only collected by a
    worker, leaves no socket open)."""

    def __init__(self) -> None:
        hits: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                body = b'{"type": "string"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.hits = hits
        self._handler = Handler
        self.url = ""

    def __enter__(self) -> RecordingServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread if the block runs longer than `seconds` (a call
    that blocks, like opening a FIFO, is interrupted); POSIX only."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
