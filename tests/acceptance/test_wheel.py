"""The built wheel ships the schemas: install it into a fresh venv and run `handoff check`.

The fresh venv gets the wheel itself (no editable install, run outside the checkout); its
third-party dependencies are borrowed from the test environment's site-packages through a
`.pth` line, so the test needs no network. The editable hook there is not loaded (nested
`.pth` files are only read for site directories), so `engine` can only come from the wheel.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.acceptance.test_pre_commit import snapshot_of_this_repo
from tests.conftest import CONFIGS, REPO
from tests.patience import HANG_S

SCHEMAS = [
    "engine.schema.json",
    "agent.schema.json",
    "capabilities.schema.json",
    "routing.schema.json",
]


CONSOLE_FILES = [
    "static/console.css", "static/console.js", "static/favicon.svg", "templates/base.html",
    "templates/topology.html", "templates/playground.html", "templates/records.html",
    "templates/record.html", "templates/eval.html",
]
CONSOLE_CHECK = (
    "from engine.console.views import environment, load_assets; "
    "assert set(load_assets()) == {'console.css', 'console.js', 'favicon.svg'}; "
    "print(len(environment().list_templates()))"
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=HANG_S)


def build_wheel(out: Path) -> Path:
    out.mkdir(parents=True)
    built = run(
        sys.executable,
        "-m",
        "build",
        "--wheel",
        "--no-isolation",
        "--outdir",
        str(out),
        str(REPO),
        cwd=out,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = out.glob("handoff_engine-*.whl")
    return wheel


def fresh_venv(folder: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    site = run(
        str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=folder
    ).stdout.strip()
    (Path(site) / "borrowed_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    return python


@pytest.mark.slow
def test_wheel_installs_and_checks_configs_with_bundled_schemas(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    for schema in SCHEMAS:
        assert any(name.endswith(f"engine/_schemas/{schema}") for name in names), schema
    for asset in CONSOLE_FILES:
        assert f"engine/console/{asset}" in names, asset
    python = fresh_venv(tmp_path / "venv")
    installed = run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(python),
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        str(wheel),
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    shutil.copytree(CONFIGS / "banking", tmp_path / "work" / "banking")
    where = run(str(python), "-c", "import engine; print(engine.__file__)", cwd=tmp_path / "work")
    assert where.stdout.startswith(str(tmp_path / "venv")), where
    check = run(
        str(tmp_path / "venv" / "bin" / "handoff"),
        "check",
        "banking",
        "--strict",
        cwd=tmp_path / "work",
    )
    assert (check.returncode, check.stdout.strip()) == (0, "checked 1 set, 9 files: ok"), check
    broken = tmp_path / "work" / "banking" / "agents" / "claims.yaml"
    broken.write_text(broken.read_text("utf-8").replace("peers:", "peer:"), "utf-8")
    check = run(
        str(tmp_path / "venv" / "bin" / "handoff"), "check", "banking", cwd=tmp_path / "work"
    )
    assert check.returncode == 1
    assert "banking/agents/claims.yaml:8:1: error[unknown-key] $.peer" in check.stdout
    if importlib.util.find_spec("jinja2") is not None:  # the console extra, borrowed
        console = run(str(python), "-c", CONSOLE_CHECK, cwd=tmp_path / "work")
        templates = len(list((REPO / "engine" / "console" / "templates").glob("*.html")))
        assert (console.returncode, console.stdout.strip()) == (0, str(templates)), console
    handoff = str(tmp_path / "venv" / "bin" / "handoff")
    shown = run(handoff, "schema", "show", "engine", cwd=tmp_path / "work")
    assert shown.returncode == 0
    assert '"$id": "https://handoff-engine.dev/schemas/v1/engine.schema.json"' in shown.stdout
    scaffolded = run(handoff, "init", "configs/desk", cwd=tmp_path / "work")
    assert scaffolded.returncode == 0, scaffolded.stderr
    checked = run(handoff, "check", "configs/desk", "--strict", cwd=tmp_path / "work")
    assert (checked.returncode, checked.stdout.strip()) == (0, "checked 1 set, 5 files: ok")
    assert (tmp_path / "work" / ".handoff" / "schemas" / "specs").is_dir()


@pytest.mark.slow
def test_install_from_a_git_commit_as_the_getting_started_page_shows(tmp_path: Path) -> None:
    """`pip install "handoff-engine @ git+URL@<commit sha>"` into a fresh venv, then the
    older `git+URL@<sha>#egg=handoff-engine` form resolved to the same commit (a dry run)."""
    repo = snapshot_of_this_repo(tmp_path / "handoff-engine")
    sha = run("git", "rev-parse", "HEAD", cwd=repo).stdout.strip()
    url = f"git+file://localhost{repo}@{sha}"  # a host, as in an https URL (pip 23 needs one)
    python = fresh_venv(tmp_path / "venv")
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "-q"]
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", *offline]
    installed = run(*pip, f"handoff-engine @ {url}", cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]
    shutil.copytree(CONFIGS / "banking", tmp_path / "work" / "banking")
    check = run(str(tmp_path / "venv" / "bin" / "handoff"), "check", "banking", "--strict",
                cwd=tmp_path / "work")
    assert (check.returncode, check.stdout.strip()) == (0, "checked 1 set, 9 files: ok"), check
    where = run(str(python), "-c", "import engine; print(engine.__file__)", cwd=tmp_path / "work")
    assert where.stdout.startswith(str(tmp_path / "venv")), where

    egg = run(*pip, "--dry-run", "--ignore-installed", "--report", "-",
              f"{url}#egg=handoff-engine", cwd=tmp_path)
    assert egg.returncode == 0, egg.stderr[-2000:]
    (item,) = json.loads(egg.stdout)["install"]
    assert item["metadata"]["name"] == "handoff-engine"
    assert item["download_info"]["vcs_info"]["commit_id"] == sha
