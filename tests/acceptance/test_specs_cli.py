"""`handoff schema` and `handoff validate` as real processes: output, formats, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.patience import HANG_S

pytestmark = pytest.mark.slow

ERROR_YAML = """\
taxonomy_version: "1.0"
categories:
  - category_name: tools
    code_prefix: 2
    description: ""
    errors:
      - {code: 301, name: TOOL_TIMEOUT, description: d, severity: error, recoverable: true}
"""
GOOD_YAML = """\
# yaml-language-server: $schema=../schemas/specs/agent_error_taxonomy_v1.json
taxonomy_version: "1.0.0"
categories:
  - category_name: tools
    code_prefix: 2
    description: Tools that fail
    errors:
      - code: 201
        name: TOOL_TIMEOUT
        description: A tool timed out
        severity: error
        recoverable: true
"""
CAPSULE = {
    "capsule_id": "capsule_" + "B" * 26, "schema_version": "1.0.0",
    "created_at": "2024-05-01T12:00:05Z",
    "agent": {"agent_id": "a", "agent_name": "A", "agent_version": "1.0.0",
              "model": {"provider": "local", "model_id": "m"}},
    "run": {"run_id": "r", "started_at": "2024-05-01T12:00:00",
            "ended_at": "2024-05-01T12:00:01", "status": "success"},
    "execution_trace": [{"step_index": 1, "step_type": "planning",
                         "started_at": "2024-05-01T12:00:00Z",
                         "ended_at": "2024-05-01T12:00:01Z"}],
    "environment": {"aumai_runtime_version": "0.1.0", "python_version": "3.11.9"},
    "outcome": {"final_answer": None},
}


def handoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True,
                          text=True, timeout=HANG_S, check=False)


def test_schema_list_and_show() -> None:
    listed = handoff("schema", "list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "agent", "capabilities", "cases", "engine", "listeners", "routing",
        "agent_capability_v1", "agent_error_taxonomy_v1", "capsule_format_v1",
        "tool_canonical_ir_v1"]
    shown = handoff("schema", "show", "capsule_format_v1")
    assert shown.returncode == 0
    assert json.loads(shown.stdout)["title"] == "AumAI Deterministic Run Capsule"


def test_unknown_schema_names_are_usage_errors() -> None:
    done = handoff("validate", "nope", "x.yaml")
    assert done.returncode == 2
    assert "no bundled schema named 'nope'" in done.stderr
    assert "capsule_format_v1" in done.stderr and done.stdout == ""


def test_validate_clean_file_exits_0(write_files: Callable[[dict[str, str]], Path]) -> None:
    folder = write_files({"good.yaml": GOOD_YAML})
    done = handoff("validate", "agent_error_taxonomy_v1", str(folder / "good.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "validated 1 file: ok\n"


def test_validate_reports_every_issue_located(
    write_files: Callable[[dict[str, str]], Path]
) -> None:
    folder = write_files({"bad.yaml": ERROR_YAML, "good.yaml": GOOD_YAML})
    bad, good = str(folder / "bad.yaml"), str(folder / "good.yaml")
    done = handoff("validate", "agent_error_taxonomy_v1", bad, good, str(folder / "gone.yml"))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"{bad}:1:19: error[schema] $.taxonomy_version: '1.0' does not match " \
        "'^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$': Semantic version of this taxonomy." in lines
    assert f"{bad}:5:18: error[schema] $.categories[0].description: '' should be non-empty" \
        in lines
    assert f"{bad}:7:16: error[schema] $.categories[0].errors[0].code: 301 is greater than " \
        "the maximum of 299" in lines
    assert any(line.startswith(f"{folder / 'gone.yml'}: error[file-not-found]") for line in lines)
    assert lines[-1] == "validated 3 files: 4 error(s), 0 warning(s)"
    assert good not in done.stdout


def test_validate_json_file_with_model_only_rule(
    write_files: Callable[[dict[str, str]], Path]
) -> None:
    folder = write_files({"capsule.json": json.dumps(CAPSULE, indent=2)})
    done = handoff("validate", "capsule_format_v1", str(folder / "capsule.json"),
                   "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["errors"] == 1
    (found,) = report["issues"]
    assert found["json_path"] == "$" and "contiguous and zero-based" in found["message"]
    assert found["line"] >= 1 and found["col"] >= 1


def test_validate_github_annotations(write_files: Callable[[dict[str, str]], Path]) -> None:
    folder = write_files({"bad.yaml": ERROR_YAML})
    done = handoff("validate", "agent_error_taxonomy_v1", str(folder / "bad.yaml"),
                   "--format", "github")
    assert done.returncode == 1
    assert all(line.startswith("::error file=") for line in done.stdout.splitlines())
    assert ",line=7,col=16,title=schema::" in done.stdout


def test_validate_reads_the_standard_input_against_a_config_schema() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "validate", "agent", "-"],
                          input="name: a\npeer: []\n", capture_output=True, text=True,
                          timeout=HANG_S, check=False)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "<stdin>:2:1: error[unknown-key] $.peer: unknown key 'peer'; did you mean 'peers'?",
        "validated 1 file: 1 error(s), 0 warning(s)"]
    shipped = handoff("validate", "routing", "configs/banking/routing.yaml")
    assert (shipped.returncode, shipped.stdout) == (0, "validated 1 file: ok\n")
