"""`handoff watch --metrics-port --log-format json` in a real process: real HTTP requests to its
/metrics while a config edit is rejected then fixed, and one JSON log line per reload."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.acceptance.test_watch_cli import BANKING, Watch, edit
from tests.extras import need
from tests.patience import HANG_S

need("prometheus_client", extra="prometheus", group="observability")

CONFIG = 'config="banking-concierge"'


def scrape(url: str) -> dict[str, float]:
    """`name{labels}` -> value of every sample /metrics serves now."""
    with urllib.request.urlopen(url, timeout=HANG_S) as response:
        text = response.read().decode()
    found = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            found[key] = float(value)
    return found


def json_lines(path: Path, count: int, *, timeout: float = HANG_S) -> list[dict[str, object]]:
    """The first `count` JSON lines the process wrote to stderr (waits for them)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                 if line.startswith("{")]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


@pytest.mark.slow
def test_metrics_and_json_logs_follow_a_rejected_then_a_fixed_edit(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(BANKING, tmp_path / "banking"))
    stderr = tmp_path / "stderr.txt"
    watch = Watch(folder, "--format", "json", "--debounce-ms", "20", "--metrics-port", "0",
                  "--log-format", "json", log=stderr)
    try:
        started = json.loads(watch.line())
        url = str(started["metrics"])
        assert url.startswith("http://127.0.0.1:") and url.endswith("/metrics")
        version = started["version"]
        first = scrape(url)
        assert first[f'handoff_config_info{{{CONFIG},version="{version}"}}'] == 1
        assert first[f"handoff_config_last_reload_successful{{{CONFIG}}}"] == 1

        edit(folder / "routing.yaml", "priority: 40", "priority: high")
        assert json.loads(watch.line())["outcome"] == "rejected"
        after = scrape(url)
        assert after[f"handoff_config_reload_failures_total{{{CONFIG}}}"] == 1
        assert after[f"handoff_config_last_reload_successful{{{CONFIG}}}"] == 0
        assert after[f'handoff_config_info{{{CONFIG},version="{version}"}}'] == 1

        edit(folder / "routing.yaml", "priority: high", "priority: 41")
        applied = json.loads(watch.line())
        assert applied["outcome"] == "applied"
        fixed = scrape(url)
        assert fixed[f"handoff_config_last_reload_successful{{{CONFIG}}}"] == 1
        assert fixed[f'handoff_config_info{{{CONFIG},version="{applied["version"]}"}}'] == 1
        assert (fixed[f"handoff_config_last_reload_success_timestamp_seconds{{{CONFIG}}}"]
                > first[f"handoff_config_last_reload_success_timestamp_seconds{{{CONFIG}}}"])

        rejected, ok = json_lines(stderr, 2)
        assert (rejected["event"], rejected["level"], rejected["outcome"]) == (
            "reload", "warning", "rejected")
        assert rejected["issues"][0]["json_path"] == "$.rules[7].priority"  # type: ignore[index]
        assert (ok["event"], ok["level"], ok["version"]) == ("reload", "info", applied["version"])
        assert watch.stop(signal.SIGINT) == 0
    finally:
        errors = watch.close()
    assert "Traceback" not in errors
    assert len(json_lines(stderr, 2)) == 2  # one line per reload, nothing repeated


@pytest.mark.slow
def test_a_taken_metrics_port_is_a_usage_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "engine", "watch", str(BANKING), "--metrics-port", str(port)],
            capture_output=True, text=True, timeout=HANG_S,
        )
    assert done.returncode == 2
    assert f"--metrics-port {port}: cannot listen on 127.0.0.1" in done.stderr
