"""`handoff watch` in a real process: start it, edit the YAML, read its lines, stop it."""

from __future__ import annotations

import json
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.patience import HANG_S

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"


class Watch:
    """A running `handoff watch`, its stdout lines read by a thread into a queue."""

    def __init__(self, *args: str | Path, log: Path) -> None:
        self.log = log
        self.stderr = log.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine", "watch", *map(str, args)],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def line(self, *, timeout: float = HANG_S) -> str:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            errors = self.log.read_text(encoding="utf-8")
            raise AssertionError(f"no output line within {timeout} s; stderr: {errors}") from None

    def stop(self, signum: int = signal.SIGINT) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=HANG_S)

    def close(self) -> str:
        """Kill it if still running, close the pipes, return what it wrote to stderr."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=HANG_S)
        assert self.process.stdout is not None
        if self.stderr.closed:
            return ""
        self.reader.join(15)  # it ends at end of output
        self.stderr.close()
        self.process.stdout.close()
        return self.log.read_text(encoding="utf-8")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return Path(shutil.copytree(BANKING, tmp_path / "banking"))


@pytest.fixture
def running(folder: Path, tmp_path: Path) -> Iterator[Watch]:
    watch = Watch(folder, "--debounce-ms", "20", log=tmp_path / "stderr.txt")
    yield watch
    watch.close()


def edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


@pytest.mark.slow
def test_prints_rejections_with_issues_then_applies_the_fix(
    folder: Path, running: Watch
) -> None:
    started = running.line()
    assert started.startswith("serving ") and "banking-concierge, 6 agents" in started
    version = started.split()[1]
    edit(folder / "routing.yaml", "priority: 40", "priority: high")
    assert running.line() == f"rejected: still serving {version}; 1 issue(s):"
    issue = running.line()
    assert "routing.yaml:" in issue and "error[type] $.rules[7].priority" in issue
    edit(folder / "routing.yaml", "priority: high", "priority: 41")
    applied = running.line()
    assert applied.startswith("serving again after 1 rejected reload(s): applied ")
    assert f"(was {version})" in applied
    fixed = applied.split()[7]
    edit(folder / "routing.yaml", "priority: 41", "priority: 42")
    assert running.line().startswith("applied ")  # no rejection to recover from
    assert running.stop(signal.SIGINT) == 0
    assert "Traceback" not in running.close()
    assert fixed != version


@pytest.mark.slow
def test_boolean_payload_schemas_are_reloaded_and_the_watch_goes_on(
    folder: Path, running: Watch
) -> None:
    """`payload_schema: true` applies, `false` is a located rejection; later edits still serve."""
    assert running.line().startswith("serving ")
    claims = folder / "agents" / "claims.yaml"
    edit(claims, "peers:", "accepts:\n  payload_schema: true\npeers:")
    assert running.line().startswith("applied ")
    edit(claims, "payload_schema: true", "payload_schema: false")
    assert running.line().startswith("rejected: ")
    issue = running.line()
    assert "claims.yaml:9:" in issue and "error[invalid-payload-schema]" in issue
    edit(claims, "payload_schema: false", "payload_schema: {type: object}")
    assert running.line().startswith("serving again after 1 rejected reload(s): applied ")
    assert running.stop(signal.SIGINT) == 0
    assert "Traceback" not in running.close()


@pytest.mark.slow
def test_undoing_a_rejected_edit_confirms_the_version_serving_again(
    folder: Path, running: Watch
) -> None:
    version = running.line().split()[1]
    edit(folder / "routing.yaml", "priority: 40", "priority: high")
    assert running.line().startswith("rejected: still serving")
    running.line()  # the issue
    edit(folder / "routing.yaml", "priority: high", "priority: 40")  # back as it was
    assert running.line() == (f"serving again after 1 rejected reload(s): {version} "
                              "(the files are back to the serving version)")
    assert running.stop(signal.SIGINT) == 0


@pytest.mark.slow
def test_sigterm_stops_cleanly(running: Watch) -> None:
    assert running.line().startswith("serving ")
    assert running.stop(signal.SIGTERM) == 0


@pytest.mark.slow
def test_json_lines_and_until_reload(folder: Path, tmp_path: Path) -> None:
    watch = Watch(folder, "--format", "json", "--until-reload", "--debounce-ms", "20",
                  log=tmp_path / "stderr.txt")
    started = json.loads(watch.line())
    assert started["event"] == "started" and started["agents"] == 6
    edit(folder / "routing.yaml", "to: card_recommendation", "to: investment_advisor")
    result = json.loads(watch.line())
    assert result["outcome"] == "applied" and result["previous_version"] == started["version"]
    assert result["version"] != started["version"] and result["issues"] == []
    assert watch.process.wait(timeout=HANG_S) == 0  # --until-reload: exits after the first result
    watch.close()


@pytest.mark.slow
def test_once_loads_reports_and_exits_without_an_edit(folder: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "watch", str(folder), "--once"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("serving ") and "(banking-concierge, 6 agents)" in result.stdout
    assert result.stdout.rstrip().endswith("; not watching (--once)")
    assert "stopped" not in result.stderr  # it never watched
    assert len(result.stdout.splitlines()) == 1


@pytest.mark.slow
def test_once_and_until_reload_together_are_a_usage_error(folder: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "engine", "watch", str(folder), "--once", "--until-reload"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 2
    assert "give one of them" in result.stderr


@pytest.mark.slow
def test_invalid_config_at_start_exits_1_with_the_issues(folder: Path) -> None:
    edit(folder / "routing.yaml", "    to: card_recommendation", "    to: nobody")
    result = subprocess.run(
        [sys.executable, "-m", "engine", "watch", str(folder)],
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )
    assert result.returncode == 1
    assert "routing.yaml:" in result.stdout and "error[unknown-agent]" in result.stdout
    assert "'nobody' is not a declared agent" in result.stdout


@pytest.mark.slow
def test_out_of_range_timings_are_usage_errors_naming_the_flag(folder: Path) -> None:
    cases = [(("--settle-ms", "99999999999999"), "--settle-ms must be a whole number from 0"),
             (("--debounce-ms", "99999999999"), "--debounce-ms must be a whole number from 1"),
             (("--poll", "nan"), "--poll must be None or a number of seconds"),
             (("--poll", "-1"), "--poll must be")]
    for flags, message in cases:
        result = subprocess.run(
            [sys.executable, "-m", "engine", "watch", str(folder), "--once", *flags],
            capture_output=True, text=True, timeout=120, check=False,
        )
        assert result.returncode == 2 and message in result.stderr, (flags, result.stderr)


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_watch(folder: Path, tmp_path: Path) -> None:
    """`handoff watch DIR | head -1`: once head is gone, the next reload line cannot be
    written, and the watch stops (exit 1) instead of logging a broken pipe on every reload."""
    with (tmp_path / "stderr.txt").open("w+", encoding="utf-8") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "engine", "watch", str(folder), "--debounce-ms", "20"],
            stdout=subprocess.PIPE, stderr=errors, text=True)
        assert process.stdout is not None
        assert process.stdout.readline().startswith("serving ")
        process.stdout.close()  # what `| head -1` does once it has its line
        edit(folder / "routing.yaml", "to: card_recommendation", "to: investment_advisor")
        assert process.wait(timeout=HANG_S) == 1
        errors.seek(0)
        written = errors.read()
    assert "Traceback" not in written and "BrokenPipeError" not in written


@pytest.mark.slow
def test_json_logs_hold_no_plain_text_lines(folder: Path, tmp_path: Path) -> None:
    watch = Watch(folder, "--log-format", "json", "--until-reload", "--debounce-ms", "20",
                  log=tmp_path / "stderr.txt")
    assert watch.line().startswith("serving ")
    edit(folder / "routing.yaml", "priority: 40", "priority: high")  # rejected
    assert watch.line().startswith("rejected")
    assert watch.process.wait(timeout=HANG_S) == 1
    lines = [line for line in watch.close().splitlines() if line != "stopped"]
    assert lines and all(json.loads(line) for line in lines)
