"""The pre-commit hooks of this repository, pinned to a commit in a scratch repository's
`.pre-commit-config.yaml` the way the getting-started page tells a team to adopt them: a bad
cases file, a failing case, unrelated YAML."""

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


def snapshot_of_this_repo(target: Path) -> Path:
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


def _commit_of(repo: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True, timeout=HANG_S)
    return done.stdout.strip()


def _pin(scratch: Path, hook_repo: Path, rev: str) -> None:
    """The `.pre-commit-config.yaml` of the getting-started page: the hooks' repository at a
    commit (no release tag needed)."""
    (scratch / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo.as_uri()}\n    rev: {rev}\n    hooks:\n"
        "      - id: handoff-check\n      - id: handoff-test\n        args: [configs/]\n",
        encoding="utf-8",
    )


def _run(scratch: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Both hooks on every file. The first run installs the hooks' environment into `home`
    from the pinned commit; later runs reuse it, as on a developer's machine."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PRE_COMMIT_HOME": str(home)}
    return subprocess.run([str(BIN / "pre-commit"), "run", "--all-files"], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=HANG_S, check=False)


def test_hooks_pinned_to_a_commit_check_every_file_a_set_owns_and_run_its_cases(
    tmp_path: Path,
) -> None:
    hooks = snapshot_of_this_repo(tmp_path / "handoff-engine")
    (hooks / "CHANGES.md").write_text("a commit after the pinned one\n", encoding="utf-8")
    pinned = _commit_of(hooks)
    git("add", "-A", cwd=hooks)
    git("commit", "-qm", "later", cwd=hooks)  # the pin is not the tip: rev really is a commit
    scratch = tmp_path / "team-repo"
    scratch.mkdir()
    git("init", "-q", cwd=scratch)
    subprocess.run([str(BIN / "handoff"), "init", "configs/desk", "-q"], cwd=scratch, check=True)
    (scratch / ".github").mkdir()
    (scratch / ".github" / "ci.yaml").write_text("on: push\njobs: {}\n", encoding="utf-8")
    _pin(scratch, hooks, pinned)
    git("add", "-A", cwd=scratch)

    home = tmp_path / "pre-commit-home"
    passed = _run(scratch, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "handoff check....." in passed.stdout and "handoff test....." in passed.stdout
    assert "mutable reference" not in passed.stdout + passed.stderr

    cases = scratch / "configs" / "desk" / "cases.yaml"
    text = cases.read_text("utf-8")
    cases.write_text(text.replace("target: billing, layer: rule", "target: bill, layer: rule"),
                     encoding="utf-8")
    git("add", "-A", cwd=scratch)
    failed = _run(scratch, home)
    assert failed.returncode == 1
    located = "configs/desk/cases.yaml:7:22: error[unknown-agent] $.cases[0].expect.target: 'bill'"
    assert failed.stdout.count(located) == 2, failed.stdout  # once per hook
