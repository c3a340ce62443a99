"""Where `handoff learn` writes its set: an --out that cannot be a folder is refused before
any learning, and a write that fails part-way leaves nothing behind to block the next try."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.errors import UsageError
from engine.learning import write
from engine.learning.write import check_out, write_learned
from engine.loading.loader import load_config
from tests.conftest import CONFIGS


@pytest.fixture(scope="module")
def snapshot() -> Any:
    return load_config(CONFIGS / "research")


def test_an_out_that_cannot_be_a_folder_is_refused(snapshot: Any, tmp_path: Path) -> None:
    (tmp_path / "corpus.csv").write_text("text,label\n", encoding="utf-8")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    cases = [(tmp_path / "corpus.csv" / "sub", "corpus.csv' is a file, not a folder"),
             (tmp_path / "dangling", "is a link to nothing"),
             (tmp_path / "corpus.csv", "is a file, not a folder")]
    for out, message in cases:
        with pytest.raises(UsageError, match=message):
            check_out(snapshot, out)


@pytest.mark.parametrize("existed", [False, True])
def test_a_write_that_fails_part_way_leaves_nothing(
    snapshot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existed: bool
) -> None:
    out = tmp_path / "learned"
    if existed:
        out.mkdir()
    copies = [0]

    def full_disk(source: Any, target: Any) -> Any:
        copies[0] += 1
        if copies[0] == 3:
            raise OSError(28, "No space left on device")
        return shutil.copyfile(source, target)

    monkeypatch.setattr(write.shutil, "copyfile", full_disk)
    with pytest.raises(UsageError, match=r"cannot write the learned set into .*No space left"):
        write_learned(snapshot, out, {}, [], source="corpus.csv")
    assert out.exists() == existed and (not existed or list(out.iterdir()) == [])
    monkeypatch.undo()
    assert write_learned(snapshot, out, {}, [], source="corpus.csv")  # nothing in the way
