"""`handoff export --format pipecat-flow` in a real process: the YAML (or JSON) it writes loads in
Pipecat Flows' own loader, and what does not carry over is listed on stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import framework

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"


def export(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "export", *map(str, args)],
        capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["flow.yaml", "flow.json"])
def test_the_exported_flow_loads_in_pipecat_flows(tmp_path: Path, name: str) -> None:
    flows = framework("pipecat.flows", "pipecat")
    done = export(BANKING, "--format", "pipecat-flow", "--output", tmp_path / name)
    assert done.returncode == 0, done.stderr
    config = flows.FlowConfig.from_file(tmp_path / name)   # Pipecat's loader and validator
    assert config.initial_node == "concierge" and "fraud_agent" in config.nodes
    assert f"wrote pipecat-flow to {tmp_path / name}" in done.stderr
    assert "not carried over (" in done.stderr
    assert "  routing.rules: lost-or-stolen-card," in done.stderr


@pytest.mark.slow
def test_yaml_goes_to_stdout_and_notes_to_stderr() -> None:
    done = export(BANKING, "--format", "pipecat-flow")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("initial_node: concierge\nnodes:\n")
    assert "not carried over" not in done.stdout
    assert "agent fraud_agent: accepts.payload_schema" in done.stderr


@pytest.mark.slow
def test_an_invalid_set_exits_1_with_located_issues(tmp_path: Path) -> None:
    (tmp_path / "engine.yaml").write_text("version: 1\nname: x\nentry: nobody\n",
                                          encoding="utf-8")
    done = export(tmp_path, "--format", "pipecat-flow")
    assert done.returncode == 1 and done.stdout == ""
    assert f"{tmp_path / 'engine.yaml'}:" in done.stderr


@pytest.mark.slow
def test_a_json_suffix_in_any_case_writes_json_and_an_unwritable_output_is_a_usage_error(
    tmp_path: Path,
) -> None:
    done = export(BANKING, "--format", "pipecat-flow", "--output", tmp_path / "flow.JSON")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "flow.JSON").read_text(encoding="utf-8").startswith("{\n")
    for output, reason in ((tmp_path, "Is a directory"),
                           (tmp_path / "missing" / "flow.yaml", "No such file or directory")):
        failed = export(BANKING, "--format", "pipecat-flow", "--output", output)
        assert failed.returncode == 2, failed.stderr
        assert f"handoff export: cannot write {output}: {reason}" in failed.stderr
        assert "Traceback" not in failed.stderr


@pytest.mark.slow
def test_the_format_is_required_and_checked() -> None:
    done = export(BANKING, "--format", "rasa")
    assert done.returncode == 2 and "invalid choice: 'rasa'" in done.stderr
