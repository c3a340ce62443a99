"""Conventions shared with ruff and check-jsonschema: --version, -q/-v, colour, summaries,
--format on `test`, and `handoff test` finding each set's own cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.patience import HANG_S

HANDOFF = str(Path(sys.executable).parent / "handoff")
pytestmark = pytest.mark.slow
RED_ERROR = "\033[31merror[unknown-key]\033[0m"


def handoff(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    plain = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run([HANDOFF, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=HANG_S, env={**plain, **(env or {})}, check=False)


def test_version_names_the_installed_distribution() -> None:
    from importlib.metadata import version

    done = handoff("--version")
    assert (done.returncode, done.stdout) == (0, f"handoff {version('handoff-engine')}\n")


def test_a_clean_check_ends_with_one_summary_line_and_quiet_prints_nothing() -> None:
    done = handoff("check", "configs/", "--strict")
    assert (done.returncode, done.stdout) == (0, "checked 2 sets, 15 files: ok\n")
    assert handoff("-q", "check", "configs/").stdout == ""
    assert handoff("check", "-q", "configs/").stdout == ""
    verbose = handoff("check", "-v", "configs/banking")
    assert "banking-concierge: 9 files, version " in verbose.stderr


def _broken(tmp_path: Path) -> str:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "engine.yaml").write_text(
        "version: 1\nname: x\nentry: a\ninclude: {agents: [a.yaml]}\n", "utf-8")
    (folder / "a.yaml").write_text("name: a\nhandoff: {is_entry_point: true}\nterminal: true\n"
                                   "peer: []\n", "utf-8")
    return str(folder)


def test_colour_is_off_when_piped_on_when_forced_and_no_color_wins(tmp_path: Path) -> None:
    folder = _broken(tmp_path)
    piped = handoff("check", folder)
    assert piped.returncode == 1 and "\033[" not in piped.stdout
    assert "checked 1 set, 2 files: 1 error(s), 0 warning(s)" in piped.stdout
    assert RED_ERROR in handoff("check", folder, env={"FORCE_COLOR": "1"}).stdout
    assert "\033[" not in handoff("check", folder, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert RED_ERROR in handoff("check", "--color", "always", folder, env={"NO_COLOR": "1"}).stdout
    assert "\033[" not in handoff("check", "--color", "never", folder,
                                  env={"FORCE_COLOR": "1"}).stdout


def test_test_runs_each_sets_own_cases_with_a_summary() -> None:
    done = handoff("test", "configs/")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "tested 2 cases files, 44 cases: ok"
    assert "== configs/banking/engine.yaml: configs/banking/cases.yaml" in done.stdout
    one = handoff("test", "configs/research/routing.yaml")
    assert one.returncode == 0 and "14 case(s): 14 passed, 0 failed" in one.stdout
    refused = handoff("test", "configs/", "configs/banking/cases.yaml")
    assert refused.returncode == 2 and "holds 2 config sets" in refused.stderr


def test_test_formats_json_and_github(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text("cases:\n  - name: wrong on purpose\n    from: coordinator\n"
                     "    tool: handoff_analyst\n    text: Look.\n"
                     "    expect: {target: writer}\n", "utf-8")
    github = handoff("test", "configs/research", str(cases), "--format", "github")
    assert github.returncode == 1
    assert github.stdout.splitlines() == [
        f"::error file={cases},line=2,title=case-failed::wrong on purpose: expected target "
        "'writer', got 'analyst'",
        "::notice::1 case(s): 0 passed, 1 failed"]
    report = json.loads(handoff("test", "configs/", "--format", "json").stdout)
    assert (report["passed"], report["failed"]) == (44, 0)
    assert [run["config"] for run in report["runs"]] == [
        "configs/banking/engine.yaml", "configs/research/engine.yaml"]
