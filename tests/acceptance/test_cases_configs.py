"""Every config set shipped in configs/ passes its own routing test cases (`handoff test`)
and exercises every rule, trigger and agent it declares."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patience import HANG_S

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SETS = sorted(path.parent.name for path in CONFIGS.glob("*/cases.yaml"))


def test_every_config_set_ships_cases() -> None:
    shipped = sorted(path.parent.name for path in CONFIGS.glob("*/engine.yaml"))
    assert shipped, "no config sets found"
    assert shipped == SETS


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_shipped_cases_pass_with_full_coverage(name: str) -> None:
    folder = CONFIGS / name
    done = subprocess.run(
        [sys.executable, "-m", "engine", "test", str(folder), str(folder / "cases.yaml"),
         "--format", "json"],
        capture_output=True, text=True, timeout=HANG_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["failed"] == 0
    assert report["passed"] == len(report["cases"]) > 0
    for kind, covered in report["coverage"].items():
        assert covered["missing"] == [], f"{name}: {kind} not exercised: {covered['missing']}"


@pytest.mark.slow
def test_errors_of_a_cases_file_are_headed_as_a_cases_file(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text("cases:\n  - {text: hi, bogus: 1}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine", "test", str(CONFIGS / "banking"), str(cases)],
        capture_output=True, text=True, timeout=HANG_S,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("handoff test: cases file has "), done.stderr
    assert "config has" not in done.stderr
