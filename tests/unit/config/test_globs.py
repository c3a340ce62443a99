"""Confined globs: pathlib's rules inside the folder, links leading out returned apart."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.globs import expand_glob

NAME = st.sampled_from(["a", "b", "ab", ".h", "a.yaml", "b.yml", "x.json", "A.yaml"])
TREE = st.lists(st.lists(NAME, min_size=1, max_size=3), max_size=8)
PATTERN = st.lists(
    st.sampled_from(["*", "**", "a", "*.yaml", "?", "[ab]", "a*", "*.y*ml", ".h", "[!a]*"]),
    min_size=1,
    max_size=3,
).map("/".join)


def build(root: Path, tree: list[list[str]]) -> None:
    for parts in tree:
        path = root.joinpath(*parts)
        if any(parent.is_file() for parent in path.parents if parent != root):
            continue
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x", encoding="utf-8")


@settings(max_examples=150, deadline=None)
@given(tree=TREE, pattern=PATTERN)
def test_same_matches_as_pathlib_without_links(tree: list[list[str]], pattern: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build(root, tree)
        found = expand_glob(root, pattern)
        assert [Path(match) for match in found.matches] == sorted(set(root.glob(pattern)))
        assert found.outside == {}


@pytest.mark.parametrize("pattern", ["", "**x", "a/**b/c"])
def test_patterns_pathlib_refuses_are_refused(tmp_path: Path, pattern: str) -> None:
    with pytest.raises(ValueError):
        expand_glob(tmp_path, pattern)


def test_links_out_are_reported_and_never_entered(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "x.yaml").write_text("x", encoding="utf-8")
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "in.yaml").write_text("x", encoding="utf-8")
    (root / "out").symlink_to(outside, target_is_directory=True)
    (root / "file.yaml").symlink_to(outside / "deep" / "x.yaml")
    (root / "inner.yaml").symlink_to("sub/in.yaml")
    (root / "loop").symlink_to(".", target_is_directory=True)
    target = str(outside / "deep" / "x.yaml")
    found = expand_glob(root, "*/*.yaml")
    assert found.matches == [str(root / "loop" / "inner.yaml"), str(root / "sub" / "in.yaml")]
    assert found.outside == {root / "out": str(outside), root / "loop" / "file.yaml": target}
    recursive = expand_glob(root, "**/*.yaml")  # `**` never enters a linked folder
    assert recursive.matches == [str(root / "inner.yaml"), str(root / "sub" / "in.yaml")]
    assert recursive.outside == {root / "file.yaml": target}


def test_wildcards_skip_kubernetes_revision_folders(tmp_path: Path) -> None:
    (tmp_path / "..2026_01").mkdir()
    (tmp_path / "..2026_01" / "a.yaml").write_text("x", encoding="utf-8")
    (tmp_path / "..data").symlink_to("..2026_01", target_is_directory=True)
    (tmp_path / "a.yaml").symlink_to("..data/a.yaml")
    assert expand_glob(tmp_path, "**/*.yaml").matches == [str(tmp_path / "a.yaml")]
    assert expand_glob(tmp_path, "*/a.yaml").matches == []
    assert expand_glob(tmp_path, "..data/a.yaml").matches == [str(tmp_path / "..data" / "a.yaml")]
    assert os.path.realpath(tmp_path / "a.yaml") == str(tmp_path / "..2026_01" / "a.yaml")


def test_a_glob_that_would_multiply_folders_by_folders_is_refused(tmp_path: Path) -> None:
    for index in range(40):
        (tmp_path / f"d{index}" / "e").mkdir(parents=True)
    assert len(expand_glob(tmp_path, "**/**/**/e").matches) == 40  # `**/**` is `**`
    (tmp_path / "/".join(["c"] * 40)).mkdir(parents=True)  # C(40, 8) ways to split the chain
    with pytest.raises(ValueError, match="looks at more than 5000 paths"):
        expand_glob(tmp_path, "**/*/**/*/**/*/**/*/**/*/**/*/**/*/**/*/x.yaml", max_visits=5000)
    with pytest.raises(ValueError, match="path components"):
        expand_glob(tmp_path, "/".join(["a"] * 2000))
