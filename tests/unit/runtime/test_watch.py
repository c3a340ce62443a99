"""ConfigWatcher (thread form), real watchfiles on real folders: every way files get replaced."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from watchfiles import Change

from engine.loading.loader import load_config
from engine.runtime.reload import Reloader, ReloadResult
from engine.runtime.watch import EVERY_FILE, ConfigWatcher, WatchOptions, _Cycle
from tests.patience import HANG_S

FAST = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None)
"""Events only (no poll), so these tests prove the OS notifications are enough."""


@pytest.fixture
def watched(config_folder: Any, wait_for: Any) -> Iterator[tuple[Reloader, list[ReloadResult]]]:
    reloader = Reloader(config_folder.path)
    results: list[ReloadResult] = []
    watcher = ConfigWatcher(reloader, options=FAST, on_result=results.append)
    with watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        yield reloader, results
    assert not any(t.name == "handoff-config-watch" for t in threading.enumerate())


def serving(reloader: Reloader, version: str) -> Any:
    return lambda: reloader.current.version == version


def test_editor_style_save_is_applied(config_folder: Any, watched: Any, wait_for: Any) -> None:
    reloader, results = watched
    version = config_folder.write_routing("investment_advisor")
    wait_for(serving(reloader, version), "the edit to serve")
    # on_result runs just after the swap, on the watcher thread: wait for it too
    wait_for(lambda: results and results[-1].version == version, "the result callback")
    assert results[-1].outcome == "applied"


def test_in_place_write_is_applied(config_folder: Any, watched: Any, wait_for: Any) -> None:
    reloader, _ = watched
    version = config_folder.versions["compliance_desk"]
    text = config_folder.routing.read_text(encoding="utf-8")
    config_folder.routing.write_text(
        text.replace("to: card_recommendation\n", "to: compliance_desk\n"), encoding="utf-8"
    )
    wait_for(serving(reloader, version), "the in-place edit to serve")


def test_broken_edit_is_rejected_then_fix_applies(
    config_folder: Any, watched: Any, wait_for: Any
) -> None:
    reloader, results = watched
    before = reloader.current
    config_folder.break_routing("yaml")
    wait_for(lambda: reloader.stats.rejected == 1, "the rejection")
    assert reloader.current is before and not reloader.stats.last_ok
    wait_for(lambda: results and results[-1].outcome == "rejected", "the result callback")
    assert results[-1].issues
    version = config_folder.write_routing("investment_advisor")
    wait_for(serving(reloader, version), "the fix to serve")
    assert reloader.stats.last_ok


def test_file_deleted_mid_edit(config_folder: Any, watched: Any, wait_for: Any) -> None:
    reloader, _ = watched
    before = reloader.current
    claims = config_folder.path / "agents" / "claims.yaml"
    text = claims.read_text(encoding="utf-8")
    claims.unlink()
    wait_for(lambda: reloader.stats.rejected >= 1, "the rejection of the missing agent")
    assert reloader.current is before
    version = config_folder.write_routing("investment_advisor")
    claims.write_text(text, encoding="utf-8")
    wait_for(serving(reloader, version), "the restored set to serve")


def test_folder_deleted_and_recreated(config_folder: Any, watched: Any, wait_for: Any) -> None:
    reloader, _ = watched
    before = reloader.current
    source = config_folder.path.with_name("next")
    shutil.copytree(config_folder.path, source)
    (source / "routing.yaml").write_text(
        config_folder.routing.read_text(encoding="utf-8").replace(
            "to: card_recommendation\n", "to: investment_advisor\n"
        ),
        encoding="utf-8",
    )
    shutil.rmtree(config_folder.path)
    time.sleep(0.15)  # let the watcher observe the gap (it must keep serving meanwhile)
    assert reloader.current is before
    shutil.copytree(source, config_folder.path)
    wait_for(serving(reloader, config_folder.versions["investment_advisor"]), "the new folder")
    # the new folder is watched: a further edit is picked up too
    version = config_folder.write_routing("compliance_desk")
    wait_for(serving(reloader, version), "an edit in the new folder")


def test_folder_rename_swap(config_folder: Any, watched: Any, wait_for: Any) -> None:
    reloader, _ = watched
    staged = config_folder.path.with_name("banking.new")
    shutil.copytree(config_folder.path, staged)
    config_folder.save(staged / "routing.yaml", config_folder.routing.read_text(
        encoding="utf-8").replace("to: card_recommendation\n", "to: compliance_desk\n"))
    os.rename(config_folder.path, config_folder.path.with_name("banking.old"))
    os.rename(staged, config_folder.path)
    wait_for(serving(reloader, config_folder.versions["compliance_desk"]), "the swapped folder")
    version = config_folder.write_routing("investment_advisor")
    wait_for(serving(reloader, version), "an edit in the swapped-in folder")


def test_a_renamed_sub_folder_and_its_new_include_are_applied(
    config_folder: Any, watched: Any, wait_for: Any
) -> None:
    """The set listed agents/ when the watch began; it is renamed, then the include follows.
    A listed folder that is gone must not restart the watch on every wake-up: it reloads."""
    reloader, _ = watched
    os.rename(config_folder.path / "agents", config_folder.path / "people")
    root = config_folder.path / "engine.yaml"
    config_folder.save(root, root.read_text(encoding="utf-8").replace(
        '["agents/*.yaml"]', '["people/*.yaml"]'))
    expected = load_config(config_folder.path).version
    wait_for(serving(reloader, expected), "the set with its renamed folder")
    assert config_folder.path / "people" in reloader.folders
    config_folder.write_routing("investment_advisor")  # and the folders are watched again
    wait_for(serving(reloader, load_config(config_folder.path).version), "an edit after it")


def _configmap_revision(root: Path, source: Path, stamp: str) -> None:
    """What the kubelet does: a new hidden revision folder, then an atomic `..data` swap."""
    shutil.copytree(source, root / f"..{stamp}")
    (root / "..data_tmp").symlink_to(f"..{stamp}")
    os.replace(root / "..data_tmp", root / "..data")


def test_kubernetes_configmap_symlink_swap(
    config_folder: Any, tmp_path: Path, wait_for: Any
) -> None:
    root = tmp_path / "mounted"
    root.mkdir()
    _configmap_revision(root, config_folder.path, "2026_01_01_00_00_00.1")
    for name in ("engine.yaml", "capabilities.yaml", "routing.yaml", "agents"):
        (root / name).symlink_to(f"..data/{name}")
    reloader = Reloader(root)
    assert reloader.current.version == config_folder.versions["card_recommendation"]
    watcher = ConfigWatcher(reloader, options=FAST)
    with watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        for stamp, target in (("2026_01_01_00_01_00.2", "investment_advisor"),
                              ("2026_01_01_00_02_00.3", "compliance_desk")):
            config_folder.write_routing(target)
            old = os.readlink(root / "..data")
            _configmap_revision(root, config_folder.path, stamp)
            shutil.rmtree(root / old)
            wait_for(serving(reloader, config_folder.versions[target]), f"revision {stamp}")
    assert reloader.stats.rejected == 0


def test_a_burst_of_saves_ends_on_the_last_content(
    config_folder: Any, watched: Any, wait_for: Any
) -> None:
    reloader, _ = watched
    targets = ("investment_advisor", "compliance_desk", "card_recommendation")
    for n in range(100):
        config_folder.write_routing(targets[n % 3])
        time.sleep(0.008)  # ~100 saves in a second
    last = config_folder.versions[targets[99 % 3]]
    wait_for(serving(reloader, last), "the last save to serve")
    assert reloader.stats.applied < 40, reloader.stats  # debounced, not one build per save
    assert reloader.stats.rejected == 0


def test_hooks_fire_from_the_watcher(config_folder: Any, wait_for: Any) -> None:
    reloader = Reloader(config_folder.path)
    names: list[str] = []
    reloader.hooks.add("config_reloaded", lambda event: names.append(event.name))
    reloader.hooks.add("config_rejected", lambda event: names.append(event.name))
    with ConfigWatcher(reloader, options=FAST) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        config_folder.break_routing("dangling")
        wait_for(lambda: names == ["config_rejected"], "the rejected event")
        config_folder.write_routing("investment_advisor")
        wait_for(lambda: names == ["config_rejected", "config_reloaded"], "the reloaded event")


def test_poll_rechecks_without_events(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    cycle = _Cycle(reloader, WatchOptions(poll_interval_s=0.01))
    assert cycle.what_changed(set()) == EVERY_FILE  # first wake-up: edits before the watch
    assert cycle.what_changed(set()) is None
    time.sleep(0.02)
    assert cycle.what_changed(set()) == EVERY_FILE
    events_only = _Cycle(reloader, WatchOptions(poll_interval_s=None))
    events_only.what_changed(set())
    assert events_only.what_changed(set()) is None
    assert events_only.what_changed({(Change.modified, "/x")}) == {"/x"}


def test_stop_is_prompt_and_leaves_no_thread(config_folder: Any, wait_for: Any) -> None:
    # A tick longer than the stop's own wait: a stop that waited for the tick would leave the
    # thread running when it returns.
    tick = WatchOptions(tick_ms=int(4 * HANG_S * 1000))
    watcher = ConfigWatcher(Reloader(config_folder.path), options=tick)
    watcher.start()
    with pytest.raises(RuntimeError):
        watcher.start()
    watcher.stop(timeout=HANG_S)
    assert not any(t.name == "handoff-config-watch" for t in threading.enumerate())
