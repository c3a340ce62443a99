"""The guard usage example runs as a real process and shows retry-with-feedback working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_guard_usage_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "guard_usage" / "run.py")],
        capture_output=True, text=True, timeout=60, cwd=REPO, check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "attempt 1/3\n  parsed: truncated=True repaired=True" in out
    assert "attempt 2/3 (with feedback)" in out and "priority" in out
    assert "triage handed off: {'customer_id': 'c-42'" in out and "'priority': 2" in out
    assert "billing refused: billing amount: Increase the value of 'amount'" in out
    assert "stubborn returned: None" in out
    assert done.stderr == ""
