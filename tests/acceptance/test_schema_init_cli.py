"""`handoff schema show|export` and `handoff init` as a team runs them in its own repository."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config.schemas import schema_root
from tests.patience import HANG_S

HANDOFF = str(Path(sys.executable).parent / "handoff")
pytestmark = pytest.mark.slow


def handoff(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HANDOFF, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_S, check=False)


@pytest.mark.parametrize("name", ["engine", "agent", "capabilities", "routing", "cases",
                                  "listeners"])
def test_schema_show_prints_every_config_schema(name: str, tmp_path: Path) -> None:
    shown = handoff("schema", "show", name, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["$id"].endswith(f"/v1/{name}.schema.json")
    path = handoff("schema", "show", name, "--path", cwd=tmp_path)
    assert Path(path.stdout.strip()).read_text("utf-8") == (
        schema_root() / f"{name}.schema.json").read_text("utf-8")


def test_schema_export_writes_a_folder_to_commit(tmp_path: Path) -> None:
    done = handoff("schema", "export", ".handoff/schemas", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "exported 10 schemas to .handoff/schemas"
    assert (tmp_path / ".handoff/schemas/agent.schema.json").is_file()
    assert (tmp_path / ".handoff/schemas/specs/capsule_format_v1.json").is_file()


def test_init_scaffolds_a_set_that_checks_strict_and_passes_its_cases(tmp_path: Path) -> None:
    done = handoff("init", "configs/support", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".handoff/schemas/engine.schema.json").is_file()
    checked = handoff("check", "configs/", "--strict", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    tested = handoff("test", "configs/support", "configs/support/cases.yaml", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout
    assert "4 case(s): 4 passed, 0 failed" in tested.stdout
    again = handoff("init", "configs/support", cwd=tmp_path)
    assert again.returncode == 2
    assert "refusing to overwrite existing files" in again.stderr


def test_init_and_schema_export_refuse_paths_they_cannot_write_and_leave_nothing_half_done(
    tmp_path: Path,
) -> None:
    """A file where the set's folder goes, a --schemas path that cannot be a folder, an empty
    path: a one-line usage error, no traceback, and no half-written set to clean up by hand."""
    afile = tmp_path / "afile"
    afile.write_text("x", encoding="utf-8")
    cases = [
        (("init", "afile"), f"{afile.name} is a file, not a folder"),
        (("init", "support", "--schemas", "afile"), "cannot export the schemas: afile/"),
        (("init", "support", "--schemas", ""), "argument --schemas: an empty path"),
        (("init", ""), "argument DIR: an empty path"),
        (("schema", "export", "afile"), "cannot export the schemas: afile/"),
        (("schema", "export", ""), "argument DIR: an empty path"),
    ]
    for args, message in cases:
        done = handoff(*args, cwd=tmp_path)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["afile"]
    fixed = handoff("init", "support", "--schemas", "schemas", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr  # nothing was left in the way


def test_init_writes_the_phrase_window_it_routes_with_and_says_what_it_does(
    tmp_path: Path,
) -> None:
    assert handoff("init", "support", cwd=tmp_path).returncode == 0
    text = (tmp_path / "support" / "engine.yaml").read_text("utf-8")
    line = next(line for line in text.splitlines() if "phrase_window:" in line)
    assert line.split("#")[0].split() == ["phrase_window:", "3"]
    assert '"stolen card"' in text and "0: consecutive, in order" in text
    explained = handoff("route", "support", "--from", "frontdesk", "--explain",
                        "what is on my invoice", cwd=tmp_path)
    assert "phrase_window:3" in explained.stdout, explained.stdout
