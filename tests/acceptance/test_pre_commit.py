"""The pre-commit hooks of this repository, installed by `pre-commit try-repo` into a scratch
repository the way a team adopts them: a bad cases file, a failing case, unrelated YAML."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=cwd, check=True, capture_output=True, timeout=HANG_S)


def _snapshot_of_this_repo(target: Path) -> Path:
    """This checkout as it is on disk (uncommitted and untracked files too), as a git repo."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        source, copy = REPO / name, target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # engine/_schemas
            os.symlink(os.readlink(source), copy)
        elif source.is_file():
            shutil.copy2(source, copy)
    git("init", "-q", cwd=target)
    git("add", "-A", cwd=target)
    git("commit", "-qm", "snapshot", cwd=target)
    return target


def _try(hook_repo: Path, scratch: Path) -> subprocess.CompletedProcess[str]:
    """Both hooks on every file; each try-repo installs the hooks into a fresh environment."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(BIN / "pre-commit"), "try-repo", str(hook_repo), "--all-files"],
                          cwd=scratch, env=env, capture_output=True, text=True, timeout=HANG_S,
                          check=False)


def test_hooks_check_every_file_a_set_owns_and_run_its_cases(tmp_path: Path) -> None:
    hooks = _snapshot_of_this_repo(tmp_path / "handoff-engine")
    scratch = tmp_path / "team-repo"
    scratch.mkdir()
    git("init", "-q", cwd=scratch)
    subprocess.run([str(BIN / "handoff"), "init", "configs/desk", "-q"], cwd=scratch, check=True)
    (scratch / ".github").mkdir()
    (scratch / ".github" / "ci.yaml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    git("add", "-A", cwd=scratch)

    passed = _try(hooks, scratch)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "handoff check....." in passed.stdout and "handoff test....." in passed.stdout

    cases = scratch / "configs" / "desk" / "cases.yaml"
    text = cases.read_text("utf-8")
    cases.write_text(text.replace("target: billing, layer: rule", "target: bill, layer: rule"),
                     encoding="utf-8")
    git("add", "-A", cwd=scratch)
    failed = _try(hooks, scratch)
    assert failed.returncode == 1
    located = "configs/desk/cases.yaml:7:22: error[unknown-agent] $.cases[0].expect.target: 'bill'"
    assert failed.stdout.count(located) == 2, failed.stdout  # once per hook
