"""`handoff init`'s starter set: valid under --strict, its cases pass, its modelines resolve."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engine.config.catalog import export_schemas
from engine.errors import UsageError
from engine.loading.loader import check_paths, load_config
from engine.routing.cases import load_cases, run_case
from engine.routing.router import Router
from engine.scaffold import TEMPLATES, Scaffold

MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


def _scaffold(root: Path) -> Scaffold:
    return Scaffold(folder=root / "configs" / "desk", schemas=root / ".handoff" / "schemas",
                    name="desk")


def test_the_starter_set_passes_strict_check_and_its_cases(tmp_path: Path) -> None:
    scaffold = _scaffold(tmp_path)
    written = scaffold.write()
    assert sorted(p.relative_to(scaffold.folder).as_posix() for p in written) == sorted(TEMPLATES)
    result = check_paths([scaffold.folder])
    assert result.issues == () and not result.failed(strict=True)
    snapshot = load_config(scaffold.folder)
    assert snapshot.config.engine.name == "desk"
    cases, issues = load_cases(scaffold.folder / "cases.yaml", snapshot)
    assert issues == [] and len(cases) == 4
    router = Router(snapshot)
    assert all(run_case(router, case).passed for case in cases)


def test_every_modeline_points_at_the_exported_schema_of_its_kind(tmp_path: Path) -> None:
    scaffold = _scaffold(tmp_path)
    scaffold.write()
    export_schemas(scaffold.schemas)
    for relative, kind in TEMPLATES.items():
        path = scaffold.folder / relative
        found = MODELINE.match(path.read_text("utf-8").splitlines()[0])
        assert found, relative
        target = (path.parent / found.group(1)).resolve()
        assert target == (scaffold.schemas / f"{kind}.schema.json").resolve()
        assert target.is_file()
        assert not os.path.isabs(found.group(1))


def test_init_refuses_to_overwrite_and_then_writes_nothing(tmp_path: Path) -> None:
    scaffold = _scaffold(tmp_path)
    (scaffold.folder / "agents").mkdir(parents=True)
    (scaffold.folder / "routing.yaml").write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"refusing to overwrite existing files: .*routing\.yaml"):
        scaffold.write()
    assert sorted(p.name for p in scaffold.folder.rglob("*") if p.is_file()) == ["routing.yaml"]
    assert (scaffold.folder / "routing.yaml").read_text("utf-8") == "mine\n"


def test_a_set_name_that_is_not_a_plain_word_is_refused(tmp_path: Path) -> None:
    scaffold = Scaffold(folder=tmp_path / "x", schemas=tmp_path / "s", name="my set")
    with pytest.raises(UsageError, match="set name 'my set'"):
        scaffold.write()
    assert not (tmp_path / "x").exists()


def test_a_write_that_fails_part_way_leaves_no_starter_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the third file is written: the files written before it, and the
    third itself, are removed, so running init again is not refused."""
    scaffold = _scaffold(tmp_path)
    third = list(TEMPLATES)[2]
    text = Scaffold.text

    def full_disk(self: Scaffold, relative: str) -> str:
        if relative == third:
            raise OSError(28, "No space left on device")
        return text(self, relative)

    monkeypatch.setattr(Scaffold, "text", full_disk)
    with pytest.raises(UsageError, match=f"cannot write {scaffold.folder / third}: No space"):
        scaffold.write()
    assert [path for path in scaffold.folder.rglob("*") if path.is_file()] == []
    monkeypatch.undo()
    assert len(scaffold.write()) == len(TEMPLATES)


def test_a_file_on_the_way_to_the_folder_is_named_before_anything_is_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    scaffold = Scaffold(folder=tmp_path / "afile" / "set", schemas=tmp_path / "s", name="set")
    with pytest.raises(UsageError, match=r"afile is a file, not a folder"):
        scaffold.check()
