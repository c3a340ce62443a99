"""Files a pull request can add to a config set: symlinks out of it, FIFOs, devices, links to
huge trees. Every file a set reads resolves inside the set's folder and is a regular file
under the caps; anything else is a located issue naming the path, never its content."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.cli.output import FORMATS, render_issues
from engine.config.folders import MAX_FOLDER_DEPTH
from engine.loading.loader import check_paths, load_config, set_members
from tests.conftest import CONFIGS
from tests.patience import HANG_S
from tests.sandbox import run_python, watch
from tests.unit.config.helpers import config_set, deep_folders, link_chain, remove_deep_folders

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\nterminal: true\n"
SECRET = "api_key: sk-SECRET-0123456789\n"


@pytest.fixture
def secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside every set of the test, with content that must never be printed."""
    outside = tmp_path_factory.mktemp("outside")
    (outside / ".env").write_text(SECRET, encoding="utf-8")
    (outside / "agents").mkdir()
    (outside / "agents" / "evil.yaml").write_text("name: evil\n" + SECRET, encoding="utf-8")
    return outside


def test_a_file_linked_outside_is_named_never_read(write_files: Write, secret: Path) -> None:
    root = config_set(write_files, {"a": ENTRY})
    (root / "agents" / "zz.yaml").symlink_to(secret / ".env")
    with watch() as activity:
        result = check_paths([root])
    assert [(i.code, i.file, i.line) for i in result.issues] == [
        ("include-outside", str(root / "agents" / "zz.yaml"), 0)
    ]
    assert str(secret / ".env") in result.issues[0].message
    assert str(secret / ".env") not in activity.opened
    for fmt in FORMATS:
        assert "SECRET" not in render_issues(result.issues, fmt)


def test_a_folder_linked_outside_is_named_and_nothing_in_it_is_read(
    write_files: Write, secret: Path
) -> None:
    root = config_set(write_files, {"a": ENTRY})
    (root / "more").symlink_to(secret / "agents", target_is_directory=True)
    (root / "engine.yaml").write_text(
        (root / "engine.yaml").read_text("utf-8").replace(
            "agents: ['agents/*.yaml']", "agents: ['agents/*.yaml', 'more/*.yaml']"
        ),
        encoding="utf-8",
    )
    with watch() as activity:
        result = check_paths([root])
    assert [(i.code, i.file) for i in result.issues] == [("include-outside", str(root / "more"))]
    assert activity.outside(root) == []


def test_a_root_file_linked_outside_is_never_read(tmp_path: Path, secret: Path) -> None:
    """A root file that leads out is not read either: its includes would be relative to a
    folder the set does not own."""
    root = tmp_path / "set"
    root.mkdir()
    (root / "engine.yaml").symlink_to(secret / ".env")
    with watch() as activity:
        result = check_paths([root])
    assert [(i.code, i.file) for i in result.issues] == [
        ("include-outside", str(root / "engine.yaml"))
    ]
    assert activity.outside(root) == []
    assert set_members(root) == []  # not even the root file is fingerprinted


def test_links_that_stay_inside_the_set_are_followed(write_files: Write) -> None:
    """Inside the set a symlink is an ordinary way to share a file: allowed."""
    root = config_set(write_files, {"a": ENTRY})
    (root / "shared").mkdir()
    (root / "shared" / "b.yaml").write_text("name: b\nterminal: true\n", encoding="utf-8")
    (root / "agents" / "b.yaml").symlink_to("../shared/b.yaml")
    snapshot = load_config(root)
    assert list(snapshot.agents) == ["a", "b"]


def kubernetes_mount(source: Path, root: Path) -> Path:
    """A ConfigMap volume as the kubelet lays it out: a hidden revision folder, `..data`
    pointing at it, and every visible entry a link through `..data`."""
    root.mkdir()
    shutil.copytree(source, root / "..2026_01_01_00_00_00.1")
    (root / "..data").symlink_to("..2026_01_01_00_00_00.1")
    for entry in sorted(os.listdir(root / "..data")):
        (root / entry).symlink_to(f"..data/{entry}")
    return root


def test_a_kubernetes_configmap_mount_loads_once_per_file(tmp_path: Path) -> None:
    root = kubernetes_mount(CONFIGS / "banking", tmp_path / "mounted")
    assert check_paths([root]).issues == ()
    assert load_config(root).version == load_config(CONFIGS / "banking").version
    members = set_members(root)
    assert all(".." not in path.relative_to(root).parts[0] for path in members)
    assert len(members) == len({os.path.realpath(path) for path in members})


def test_a_link_to_a_huge_tree_is_never_walked(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY})
    (root / "usr").symlink_to("/usr", target_is_directory=True)
    (root / "engine.yaml").write_text(
        (root / "engine.yaml").read_text("utf-8").replace(
            "agents: ['agents/*.yaml']", "agents: ['**/a.yaml', 'agents/*.yaml']"
        ),
        encoding="utf-8",
    )
    with watch() as activity:
        snapshot = load_config(root)
    assert list(snapshot.agents) == ["a"]
    assert activity.outside(root) == []


def test_a_fifo_where_a_file_is_expected_is_refused_without_waiting(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY})
    os.mkfifo(root / "agents" / "notes.yaml")
    result = run_python(
        f"""
        from engine.loading.loader import check_paths
        print([(i.code, i.file) for i in check_paths([{str(root)!r}]).issues])
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([("not-a-file", str(root / "agents" / "notes.yaml"))])


def test_a_device_where_a_file_is_expected_is_refused(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY})
    (root / "agents" / "zero.yaml").symlink_to("/dev/zero")
    (root / "capabilities.yaml").unlink()
    (root / "capabilities.yaml").symlink_to("/dev/null")
    found = [(i.code, Path(i.file).name) for i in check_paths([root]).issues]
    assert found == [("include-outside", "zero.yaml"), ("include-outside", "capabilities.yaml")]


DEPTH = 1_100
"""Folder levels: more than Python's default recursion limit (1,000)."""


@pytest.fixture
def deep_set(write_files: Write) -> Iterator[tuple[Path, Path]]:
    """A good set whose folder holds a tree `DEPTH` folders deep: (set folder, deepest)."""
    root = config_set(lambda files: write_files({f"sets/one/{name}": text
                                                 for name, text in files.items()}),
                      {"a": ENTRY}) / "sets" / "one"
    deepest = deep_folders(root / "notes", DEPTH)
    yield root, deepest
    remove_deep_folders(deepest, DEPTH)


def test_a_folder_tree_of_any_depth_is_a_located_issue_not_a_crash(
    deep_set: tuple[Path, Path],
) -> None:
    root, _deepest = deep_set
    for given in (root, root.parent):
        result = check_paths([given])
        assert [(i.code, i.line) for i in result.issues] == [("too-deep", 0)]
        assert len(Path(result.issues[0].file).relative_to(given).parts) == MAX_FOLDER_DEPTH
        assert f"more than {MAX_FOLDER_DEPTH} levels" in result.issues[0].message
        assert [snapshot.config.engine.name for snapshot in result.snapshots] == ["t"]


def test_a_set_found_within_the_depth_cap_is_checked(write_files: Write, tmp_path: Path) -> None:
    """Only what lies deeper than the cap goes unsearched, and the issue says so."""
    shallow = deep_folders(tmp_path / "top", MAX_FOLDER_DEPTH - 1).relative_to(tmp_path)
    config_set(lambda files: write_files({f"{shallow}/{name}": text
                                          for name, text in files.items()}), {"a": ENTRY})
    result = check_paths([tmp_path / "top"])
    assert result.issues == () and len(result.snapshots) == 1


def test_a_chain_of_links_longer_than_the_recursion_limit_is_an_issue(write_files: Write) -> None:
    root = config_set(write_files, {"a": ENTRY})
    last = link_chain(root / "links", "../agents/a.yaml", 1_200)
    (root / "agents" / "zz.yaml").symlink_to(f"../links/{last.name}")
    result = check_paths([root])
    assert [(i.code, Path(i.file).name) for i in result.issues] == [("unreadable", "zz.yaml")]
    assert "symbolic links" in result.issues[0].message
    assert [(i.code, i.file) for i in check_paths([last]).issues] == [("unreadable", str(last))]
