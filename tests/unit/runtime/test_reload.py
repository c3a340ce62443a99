"""Reloader on real files with the real loader: validate, then swap; failures change nothing."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from engine.loading.incremental.look import fingerprint
from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot
from engine.runtime import reload
from engine.runtime.hooks import Event
from engine.runtime.reload import Reloader


def counting_loader(calls: list[Path]) -> Any:
    def load(path: Path) -> Snapshot:
        calls.append(path)
        return load_config(path)

    return load


def test_valid_edit_is_applied_and_counted(config_folder: Any) -> None:
    clock = iter([100.0, 200.0])
    reloader = Reloader(config_folder.path, clock=lambda: next(clock))
    first = reloader.current.version
    assert first == config_folder.versions["card_recommendation"]
    assert reloader.stats.last_success_at == 100.0

    expected = config_folder.write_routing("investment_advisor")
    result = reloader.reload()

    assert (result.outcome, result.version, result.previous_version) == (
        "applied", expected, first
    )
    assert reloader.current.version == expected
    stats = reloader.stats
    assert (stats.applied, stats.rejected, stats.unchanged) == (1, 0, 0)
    assert stats.last_ok and stats.version == expected and stats.last_success_at == 200.0


@pytest.mark.parametrize("kind", ["yaml", "schema", "dangling"])
def test_invalid_edit_is_rejected_and_old_snapshot_keeps_serving(
    config_folder: Any, kind: str
) -> None:
    reloader = Reloader(config_folder.path)
    serving = reloader.current
    config_folder.break_routing(kind)

    result = reloader.reload()

    assert result.outcome == "rejected"
    assert result.version == result.previous_version == serving.version
    assert reloader.current is serving
    assert any(issue.file.endswith("routing.yaml") and issue.line > 0 for issue in result.issues)
    stats = reloader.stats
    assert (stats.applied, stats.rejected, stats.last_ok) == (0, 1, False)
    assert stats.last_issues == result.issues
    # fixing the file recovers, and the counters say so
    config_folder.write_routing("compliance_desk")
    assert reloader.reload().outcome == "applied"
    assert reloader.stats.last_ok and reloader.stats.rejected == 1


@pytest.mark.slow
def test_rejection_codes_name_the_problem(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    codes = {}
    for kind in ("yaml", "schema", "dangling"):
        config_folder.break_routing(kind)
        codes[kind] = {issue.code for issue in reloader.reload().issues}
        config_folder.write_routing("card_recommendation")
        reloader.reload()
    assert codes["yaml"].isdisjoint(codes["schema"]) and codes["schema"].isdisjoint(
        codes["dangling"]
    ), codes


def test_unchanged_content_is_skipped_without_parsing(config_folder: Any) -> None:
    calls: list[Path] = []
    reloader = Reloader(config_folder.path, load=counting_loader(calls))
    assert len(calls) == 1
    # rewriting identical bytes (a save without edits) changes nothing
    config_folder.write_routing("card_recommendation")
    for _ in range(3):
        assert reloader.reload().outcome == "unchanged"
    assert len(calls) == 1
    assert reloader.stats.unchanged == 3
    # a new non-config file does not count either
    (config_folder.path / "notes.txt").write_text("todo", encoding="utf-8")
    assert reloader.reload().outcome == "unchanged" and len(calls) == 1
    # `force` parses again, and the same content still gives the same version
    assert reloader.reload(force=True).outcome == "unchanged"
    assert len(calls) == 2


def test_startup_on_an_invalid_config_raises(config_folder: Any) -> None:
    config_folder.break_routing("schema")
    with pytest.raises(ConfigError) as caught:
        Reloader(config_folder.path)
    assert caught.value.issues


def test_deleted_file_and_deleted_folder_are_rejected(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    serving = reloader.current
    (config_folder.path / "agents" / "claims.yaml").unlink()
    assert reloader.reload().outcome == "rejected"  # routing and peers name `claims`
    shutil.rmtree(config_folder.path)
    result = reloader.reload()
    assert result.outcome == "rejected" and result.issues
    assert reloader.current is serving


def test_hooks_fire_for_applied_and_rejected(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    seen: list[tuple[str, str]] = []
    reloader.hooks.add("config_reloaded", lambda e: seen.append((e.name, e.data["result"].outcome)))
    reloader.hooks.add("config_rejected", lambda e: seen.append((e.name, e.data["result"].outcome)))
    config_folder.break_routing("dangling")
    reloader.reload()
    config_folder.write_routing("investment_advisor")
    reloader.reload()
    reloader.reload()  # unchanged: no event
    assert seen == [("config_rejected", "rejected"), ("config_reloaded", "applied")]


def test_an_older_build_never_overwrites_a_newer_one(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    config_folder.write_routing("investment_advisor")
    older = reloader.build()
    config_folder.write_routing("compliance_desk")
    newer = reloader.build()
    assert reloader.apply(newer).outcome == "applied"
    assert reloader.apply(older).outcome == "unchanged"
    assert reloader.current.version == config_folder.versions["compliance_desk"]


def test_a_change_during_a_build_is_not_remembered_as_seen(config_folder: Any) -> None:
    """The loader read content B while the fingerprint was taken of A: the next check must
    build again instead of skipping B as already seen."""
    armed: list[Any] = []

    def load(path: Path) -> Snapshot:
        while armed:  # runs once, between the fingerprint and the parse
            armed.pop()()
        return load_config(path)

    reloader = Reloader(config_folder.path, load=load)
    armed.append(lambda: config_folder.write_routing("compliance_desk"))
    config_folder.write_routing("investment_advisor")
    reloader.reload()
    reloader.reload()
    assert reloader.current.version == config_folder.versions["compliance_desk"]
    assert reloader.reload().outcome == "unchanged"


def test_fingerprint_covers_the_set_files_through_links_inside_the_set(
    config_folder: Any,
) -> None:
    root = config_folder.path
    (root / "..rev1").mkdir()
    shutil.move(root / "agents", root / "..rev1" / "agents")
    (root / "agents").symlink_to("..rev1/agents", target_is_directory=True)
    (root / "loop").symlink_to(".", target_is_directory=True)
    before = fingerprint(root)
    agent = root / "..rev1" / "agents" / "claims.yaml"
    agent.write_text(agent.read_text("utf-8") + "# edited\n", encoding="utf-8")
    assert fingerprint(root) != before


def test_fingerprint_ignores_files_the_set_does_not_include(config_folder: Any) -> None:
    root = config_folder.path
    before = fingerprint(root)
    (root / "notes.yaml").write_text("anything: 1\n", encoding="utf-8")
    (root / "agents" / "draft.yml").write_text("name: draft\n", encoding="utf-8")
    assert fingerprint(root) == before


def test_concurrent_reloads_end_on_the_latest_content(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    config_folder.write_routing("compliance_desk")
    threads = [threading.Thread(target=reloader.reload) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reloader.current.version == config_folder.versions["compliance_desk"]
    assert reloader.stats.applied == 1


def test_event_payload_is_the_result_and_the_snapshot_serving(config_folder: Any) -> None:
    reloader = Reloader(config_folder.path)
    events: list[Event] = []
    reloader.hooks.add("config_reloaded", events.append)
    config_folder.write_routing("investment_advisor")
    result = reloader.reload()
    assert events == [Event("config_reloaded", {"result": result, "snapshot": reloader.current})]


def test_a_build_whose_files_changed_while_it_read_them_is_never_served(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A -> B -> A while the loader reads B: B was on disk only during the build, so it is
    never swapped in; the reloader builds again and ends on A. The wait bound is 0, so every
    load outlasts it, as a load on a busy machine may: the second load happens all the same."""
    monkeypatch.setattr(reload, "MAX_SETTLE_WAIT_S", 0.0)
    armed: list[bool] = []
    loads: list[str] = []

    def load(path: Path) -> Snapshot:
        if not armed:
            snapshot = load_config(path)
        else:
            armed.clear()
            original = config_folder.routing.read_text(encoding="utf-8")
            config_folder.write_routing("investment_advisor")
            snapshot = load_config(path)
            config_folder.save(config_folder.routing, original)
        loads.append(snapshot.version)
        return snapshot

    reloader = Reloader(config_folder.path, load=load)
    armed.append(True)
    result = reloader.reload(force=True)
    assert loads[1:] == [config_folder.versions["investment_advisor"],
                         config_folder.versions["card_recommendation"]]
    assert (result.outcome, result.version) == ("unchanged", loads[0])
    assert reloader.stats.applied == 0


def test_undoing_a_rejected_edit_is_a_rebuilt_unchanged_that_clears_the_failure(
    config_folder: Any,
) -> None:
    reloader = Reloader(config_folder.path)
    serving = reloader.current
    routing = config_folder.path / "routing.yaml"
    good = routing.read_text("utf-8")
    config_folder.break_routing("schema")
    assert reloader.reload().outcome == "rejected"
    assert reloader.stats.last_ok is False
    routing.write_text(good, "utf-8")
    result = reloader.reload()
    assert (result.outcome, result.rebuilt, result.version) == ("unchanged", True,
                                                                serving.version)
    assert reloader.stats.last_ok and reloader.stats.last_issues == ()
    skipped = reloader.reload()  # nothing new since: skipped, not rebuilt
    assert (skipped.outcome, skipped.rebuilt) == ("unchanged", False)
