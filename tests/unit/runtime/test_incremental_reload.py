"""Incremental reload: only files whose content changed are parsed, validated and built again;
the serving snapshot is frozen out of the collector's reach and holds no reference cycles."""

from __future__ import annotations

import contextlib
import gc
from pathlib import Path
from typing import Any

import pytest

from engine.config import signature
from engine.errors import ConfigError
from engine.loading.incremental.loader import load_again
from engine.loading.incremental.memory import ReloadMemory
from engine.loading.loader import load_config
from engine.runtime.reload import Reloader


def _settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as written long ago, so its stat alone tells a change, as in an older
    set (a fresh copy's ctime is now, and no call can set a ctime back)."""
    monkeypatch.setattr(signature, "RACY_S", -3600.0)


def test_a_one_file_edit_rebuilds_that_file_only(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settle(monkeypatch)
    reloader = Reloader(config_folder.path)
    before = reloader.current.agents
    path = config_folder.path / "agents" / "concierge.yaml"
    path.write_text(path.read_text("utf-8").replace("description:", "description: Edited."),
                    encoding="utf-8")
    assert reloader.reload().outcome == "applied"
    after = reloader.current.agents
    assert after["concierge"] is not before["concierge"]
    assert "Edited." in after["concierge"].description
    unchanged = [name for name in before if name != "concierge"]
    assert unchanged and all(after[name] is before[name] for name in unchanged)


def test_a_reload_result_equals_a_cold_load(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    config_folder.write_routing("investment_advisor")
    reloader.reload()
    cold = load_config(config_folder.path)
    assert reloader.current.version == cold.version
    assert reloader.current.config == cold.config


def test_files_gone_from_the_set_leave_the_cache(tmp_path: Path, config_folder: Any) -> None:
    memory = ReloadMemory()
    load_again(memory, config_folder.path)
    files = {key.file for key in memory.members}
    assert any(file.endswith("concierge.yaml") for file in files)
    (config_folder.path / "agents" / "concierge.yaml").unlink()
    with contextlib.suppress(ConfigError):  # the set is invalid now; the memory is checked
        load_again(memory, config_folder.path)
    assert not any(key.file.endswith("concierge.yaml") for key in memory.members)


def test_a_build_leaves_the_collector_as_it_was_and_the_snapshot_frozen(
    config_folder: Any,
) -> None:
    was_enabled = gc.isenabled()
    reloader = Reloader(config_folder.path)
    assert gc.isenabled() == was_enabled
    assert gc.get_freeze_count() > 0
    config_folder.write_routing("investment_advisor")
    reloader.reload()
    assert gc.isenabled() == was_enabled


def test_a_snapshot_holds_no_reference_cycles(config_folder: Any) -> None:
    """Frozen snapshots are freed by reference counting alone: a cycle would never be."""
    gc.collect()
    gc.disable()
    try:
        snapshot = load_config(config_folder.path)
        gc.collect()
        del snapshot
        assert gc.collect() == 0
    finally:
        gc.enable()


def _edit(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / "agents" / f"{name}.yaml"
    path.write_text(path.read_text("utf-8").replace(old, new), encoding="utf-8")


def _cold(folder: Path) -> tuple[str, tuple[str, ...]]:
    try:
        snapshot = load_config(folder)
    except ConfigError as error:
        return "rejected", tuple(str(found) for found in error.issues)
    return snapshot.version, tuple(str(found) for found in snapshot.warnings)


@pytest.mark.slow
@pytest.mark.parametrize("edits", [
    [("concierge", "claims]", "claims, ghost]")],  # a new unknown peer in the edited file
    [("card_recommendation", "peers: [concierge]", "peers: []")],  # a new dead end
    [("concierge", ", claims]", "]"), ("fraud_agent", "claims, ", "")],  # claims unreachable
    [("concierge", "peers: [fraud_agent", "peers: [fraud_agnt")],  # then fixed below
])
def test_reloads_report_what_a_cold_load_reports(
    config_folder: Any, edits: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Link and topology results kept between builds never go stale."""
    _settle(monkeypatch)
    reloader = Reloader(config_folder.path)
    for name, old, new in [*edits, *[(n, b, a) for n, a, b in reversed(edits)]]:
        _edit(config_folder.path, name, old, new)
        result = reloader.reload()
        version, found = _cold(config_folder.path)
        if version == "rejected":
            assert result.outcome == "rejected"
            assert tuple(str(issue) for issue in result.issues) == found
        else:
            assert reloader.current.version == version
            assert tuple(str(issue) for issue in reloader.current.warnings) == found


def test_an_unchanged_agents_link_results_are_reused(config_folder: Any) -> None:
    _edit(config_folder.path, "claims", "peers: [concierge", "peers: [ghost, concierge")
    memory = ReloadMemory()
    found = []
    for _ in range(2):
        with pytest.raises(ConfigError) as error:
            load_again(memory, config_folder.path)
        found.append([i for i in error.value.issues if i.code == "unknown-agent"])
    assert len(found[0]) == 1 and found[1][0] is found[0][0]


def test_an_agent_edit_keeps_the_rules_and_their_compiled_tables(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settle(monkeypatch)
    reloader = Reloader(config_folder.path)
    before = reloader.current
    _edit(config_folder.path, "concierge", "description:", "description: Edited.")
    assert reloader.reload().outcome == "applied"
    after = reloader.current
    assert after.rules == before.rules and all(
        new is old for new, old in zip(after.rules, before.rules, strict=True))
    assert after.tables is not None and before.tables is not None
    assert after.tables.dispatch is before.tables.dispatch
    kept = [name for name in after.tables.agents if name != "concierge"]
    assert all(after.tables.agents[name] is before.tables.agents[name] for name in kept)
    cold = load_config(config_folder.path)
    assert after.tables == cold.tables


def test_a_routing_edit_compiles_the_rules_again(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settle(monkeypatch)
    reloader = Reloader(config_folder.path)
    config_folder.write_routing("investment_advisor")
    assert reloader.reload().outcome == "applied"
    cold = load_config(config_folder.path)
    assert reloader.current.tables == cold.tables
    assert reloader.current.rules == cold.rules


def test_a_root_file_that_no_longer_loads_is_not_read_from_an_old_listing(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The look before a build lists the set again; a root it cannot use leaves no listing
    behind for the build to trust."""
    _settle(monkeypatch)
    reloader = Reloader(config_folder.path)
    root = config_folder.path / "engine.yaml"
    good = root.read_text("utf-8")
    root.write_text(good.replace("version: 1", "version: 1\nversion: 2"), encoding="utf-8")
    assert reloader.reload().outcome == "rejected"
    root.write_text(good, encoding="utf-8")
    assert reloader.reload().outcome == "unchanged"
