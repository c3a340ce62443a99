"""`handoff check` on hostile sets in a real process: paths named, content never printed, in
every output format; the node cap is an option like the size cap."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CONFIGS, REPO
from tests.unit.config.helpers import deep_folders, remove_deep_folders

HANDOFF = str(Path(sys.executable).parent / "handoff")
pytestmark = pytest.mark.slow


def handoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HANDOFF, *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_link_to_a_secret_is_named_never_printed(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, fmt: str
) -> None:
    outside = tmp_path_factory.mktemp("outside") / ".env"
    outside.write_text("OPENAI_API_KEY=sk-NEVER-PRINT-ME\n", encoding="utf-8")
    root = Path(shutil.copytree(CONFIGS / "banking", tmp_path / "banking"))
    (root / "agents" / "zz.yaml").symlink_to(outside)
    run = handoff("check", str(root), "--format", fmt)
    assert run.returncode == 1
    assert "NEVER-PRINT-ME" not in run.stdout + run.stderr
    assert "include-outside" in run.stdout and str(root / "agents" / "zz.yaml") in run.stdout


def test_the_node_cap_is_an_option(tmp_path: Path) -> None:
    root = Path(shutil.copytree(REPO / "tests/fixtures/configs/valid/base", tmp_path / "set"))
    with (root / "agents" / "a.yaml").open("a", encoding="utf-8") as agent:
        agent.write("metadata:\n  notes: [" + ", ".join(["x"] * 100) + "]\n")
    run = handoff("check", str(root), "--max-nodes", "62", "--format", "json")
    assert run.returncode == 1
    issues = json.loads(run.stdout)["issues"]
    assert [(issue["code"], Path(issue["file"]).name) for issue in issues] == [
        ("too-many-nodes", "a.yaml")
    ]
    assert handoff("check", str(root), "--max-nodes", "200").returncode == 0
    assert handoff("check", str(root), "--max-nodes", "0").returncode == 2


def test_a_folder_tree_of_any_depth_is_an_issue_not_a_traceback(tmp_path: Path) -> None:
    root = Path(shutil.copytree(CONFIGS / "banking", tmp_path / "banking"))
    deepest = deep_folders(root / "notes", 1_100)
    try:
        run = handoff("check", str(tmp_path), "--format", "json")
    finally:
        remove_deep_folders(deepest, 1_100)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    issues = json.loads(run.stdout)["issues"]
    assert [(issue["code"], issue["line"]) for issue in issues] == [("too-deep", 0)]
    assert issues[0]["file"].startswith(str(root / "notes"))
