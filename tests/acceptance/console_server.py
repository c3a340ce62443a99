"""A `handoff console` in a real process for the console's tests and the docs screenshots:
start it on a free port, read the URL it prints, stop it with SIGINT."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.extras import unavailable
from tests.patience import HANG_S

REPO = Path(__file__).resolve().parents[2]
BROWSER_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
CHROMIUM = Path(os.environ.get("HANDOFF_CHROMIUM", "/usr/bin/chromium"))


def seed_store(path: Path) -> None:
    """Record the demo calls of `examples.console_demo` into a new store file."""
    subprocess.run([sys.executable, "-m", "examples.console_demo", str(path)], cwd=REPO,
                   check=True, capture_output=True, timeout=HANG_S)


class ConsoleServer:
    """`handoff console CONFIG --port 0 ...` until `stop()`; `url` is where it listens."""

    def __init__(self, *args: str | Path, log: Path, timeout: float = HANG_S) -> None:
        self.log = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine", "console", *map(str, args), "--port", "0"],
            stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=REPO,
        )
        self.url = self._first_line(timeout).split()[2].rstrip("/")

    def _first_line(self, timeout: float) -> str:
        stdout = self.process.stdout
        assert stdout is not None
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            line = ""
        if not line.startswith("handoff console: http"):
            self.stop()
            errors = Path(self.log.name).read_text(encoding="utf-8")
            raise AssertionError(f"console did not start: {line!r}; stderr: {errors}")
        return line

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], str]:
        """Status, headers (lower-cased names) and body of a GET to the console."""
        return self.request("GET", path, headers=headers)

    def request(self, method: str, path: str, *, headers: dict[str, Any] | None = None,
                body: Any = None) -> tuple[int, dict[str, str], str]:
        request = urllib.request.Request(self.url + path, data=body, method=method,
                                         headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=HANG_S) as response:
                text = response.read().decode("utf-8")
                return response.status, _lower(response.headers.items()), text
        except urllib.error.HTTPError as error:
            return error.code, _lower(error.headers.items()), error.read().decode("utf-8")

    def stop(self, signum: int = signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
            try:
                self.process.wait(timeout=HANG_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=HANG_S)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()
        return self.process.returncode


PIN = "4921"
"""The secret in the demo calls' context (examples/console_demo/calls.py): never shown."""
_RANDOM_IDS = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{8,}")


def shows_pin(page: str) -> bool:
    """Whether `page` shows the demo's pin. Record ids are random UUIDs (`...-4921-...` is one
    in 4,096 of them) and trace ids random hex, so both are left out of the search."""
    return PIN in _RANDOM_IDS.sub("", page)


def _lower(items: Any) -> dict[str, str]:
    return {key.lower(): value for key, value in items}


def require(ready: bool, why: str) -> None:
    """Skip the calling test module when `ready` is False (a failure where
    HANDOFF_REQUIRE_BROWSER=1, as in CI: a missing console extra or browser)."""
    if not ready:
        unavailable(why, group="browser")
