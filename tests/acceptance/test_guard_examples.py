"""The guard usage example runs as a real process and shows retry-with-feedback working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.patience import HANG_S

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_guard_usage_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "guard_usage" / "run.py")],
        capture_output=True, text=True, timeout=HANG_S, cwd=REPO, check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "attempt 1/3\n  parsed: truncated=True repaired=True" in out
    assert "attempt 2/3 (with feedback)" in out and "priority" in out
    assert "triage handed off: {'customer_id': 'c-42'" in out and "'priority': 2" in out
    assert "billing refused: billing amount: Increase the value of 'amount'" in out
    assert "stubborn returned: None" in out
    assert done.stderr == ""


@pytest.mark.slow
def test_session_capsule_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "guard_usage" / "session_capsule.py")],
        capture_output=True, text=True, timeout=HANG_S, cwd=REPO, check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert ("refused: invalid_payload: payload from 'concierge' to 'fraud_agent' breaks its "
            "schema at card_last4: '12a4' does not match") in out
    assert "handed off to fraud_agent; the session is on fraud_agent" in out
    assert "step 0: sub_agent_spawn\nstep 1: sub_agent_result\n" in out
    assert "run: success; sealed and verified: True" in out
    assert "tampered copy verified: False" in out
    assert done.stderr == ""
