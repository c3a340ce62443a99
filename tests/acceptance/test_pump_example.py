"""The pump example pipeline runs as a real process and prints what the pump did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patience import HANG_S

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "pump_pipeline" / "run.py"


@pytest.mark.slow
def test_pump_pipeline_example(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # a full round trip: forward, todo + nudge, blocked send answered generically, reply
    assert "< Answer: a short draft written from the notes" in out
    assert "todo nudge present: yes" in out
    assert "[writer] SystemError routing: Message could not be delivered." in out
    # a crashing tool and a payload failing its schema are errors to the sender, not crashes
    assert "< Answer: sorry, that failed (handler)" in out
    assert "topic: String should have at least 1 character" in out
    # the topology never reaches handlers, only the log
    assert "['client', 'desk', 'writer']" not in out
    assert "blocked send writer -> 'research.search' on chain ['client', 'desk', 'writer']" in (
        done.stderr
    )
    stats = json.loads(out.rsplit("stats: ", 1)[1])
    assert stats["errors"] == {"handler": 1, "routing": 1, "validation": 1}
    assert (stats["injected"], stats["replies"], stats["in_flight"]) == (3, 3, 0)
    assert stats["dropped"] == {}
    assert "drained: True" in out
