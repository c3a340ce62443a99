"""Reloads told which paths changed (as the watcher reports them) look at those files only, and
still serve exactly what a cold load of the same files gives; when the paths are not enough to
know the set (a new or removed file, the root file, linked files) every file is looked at."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from engine.loading.incremental.look import look, look_again
from engine.loading.loader import load_config
from engine.runtime.reload import Reloader
from engine.runtime.watch import ConfigWatcher, WatchOptions
from tests.unit.runtime.conftest import assert_same_snapshot

AGENT = "agents/concierge.yaml"
EDITS: dict[str, tuple[str, str, str]] = {
    "description": ("agents/fraud_agent.yaml", "Investigates", "Looks into"),
    "peers": ("agents/card_recommendation.yaml", "peers: [concierge]", "peers: []"),
    "trigger": ("agents/fraud_agent.yaml", "trigger: handoff_fraud_agent",
                "trigger: handoff_fraud_team"),
    "capabilities": ("agents/fraud_agent.yaml", "[fraud_detection, card_security]",
                     "[fraud_detection]"),
    "routing": ("routing.yaml", "    to: card_recommendation\n", "    to: investment_advisor\n"),
}


def _save(path: Path, text: str) -> None:
    """An editor's save: a temporary file renamed over the old one."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _edit(folder: Path, relative: str, old: str, new: str) -> str:
    path = folder / relative
    text = path.read_text("utf-8")
    assert old in text, f"{relative} no longer holds {old!r}"
    _save(path, text.replace(old, new, 1))
    return str(path.resolve())


def _assert_like_cold(reloader: Reloader, folder: Path) -> None:
    """The serving snapshot is the one a cold load of the files builds, part for part."""
    cold = load_config(folder)
    assert_same_snapshot(reloader.current, cold)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(EDITS))
def test_an_edit_reloaded_from_its_path_equals_a_cold_load(config_folder: Any, kind: str) -> None:
    folder = config_folder.path
    reloader = Reloader(folder)
    relative, old, new = EDITS[kind]
    changed = _edit(folder, relative, old, new)
    assert reloader.reload(changed={changed}).outcome == "applied"
    _assert_like_cold(reloader, folder)
    _edit(folder, relative, new, old)  # and back
    assert reloader.reload(changed={changed}).outcome == "applied"
    _assert_like_cold(reloader, folder)


@pytest.mark.slow
def test_added_and_removed_files_equal_a_cold_load(config_folder: Any) -> None:
    folder = config_folder.path
    reloader = Reloader(folder)
    added = folder / "agents" / "savings.yaml"
    text = (folder / "agents" / "claims.yaml").read_text("utf-8")
    _save(added, text.replace("name: claims", "name: savings").replace(
        "trigger: handoff_claims", "trigger: handoff_savings"))
    assert reloader.reload(changed={str(added.resolve())}).outcome == "applied"
    assert "savings" in reloader.current.agents
    _assert_like_cold(reloader, folder)
    added.unlink()
    assert reloader.reload(changed={str(added.resolve())}).outcome == "applied"
    assert "savings" not in reloader.current.agents
    _assert_like_cold(reloader, folder)


def test_a_broken_file_is_rejected_and_the_last_good_config_keeps_serving(
    config_folder: Any,
) -> None:
    folder = config_folder.path
    reloader = Reloader(folder)
    serving = reloader.current
    changed = _edit(folder, AGENT, "name: concierge", "name: [concierge")
    result = reloader.reload(changed={changed})
    with pytest.raises(ConfigError) as cold:
        load_config(folder)
    assert result.outcome == "rejected" and reloader.current is serving
    assert [str(found) for found in result.issues] == [str(found) for found in cold.value.issues]
    _edit(folder, AGENT, "name: [concierge", "name: concierge")
    assert reloader.reload(changed={changed}).outcome == "unchanged"
    assert reloader.current is serving


def test_a_reported_edit_looks_at_that_file_only(config_folder: Any) -> None:
    """The save's temporary file is reported too; it is gone and was no file of the set."""
    folder = config_folder.path
    first = look(folder)
    changed = _edit(folder, AGENT, "description:", "description: Edited.")
    temporary = str((folder / "agents" / ".concierge.yaml.tmp").resolve())
    again = look_again(first, [temporary, changed])
    assert again is not None
    assert again.contents == look(folder).contents
    assert [n for n, digest in enumerate(again.contents) if digest != first.contents[n]] == [
        first.names.index(str(folder / AGENT))
    ]


def test_paths_that_do_not_tell_the_whole_set_ask_for_a_full_look(config_folder: Any) -> None:
    folder = config_folder.path
    first = look(folder)
    assert look_again(first, [str((folder / "engine.yaml").resolve())]) is None
    (folder / "agents" / "new.yaml").write_text("name: new\n", encoding="utf-8")
    assert look_again(first, [str((folder / "agents" / "new.yaml").resolve())]) is None
    assert look_again(first, [str((folder / "cases.yaml").resolve())]) is None  # not included
    (folder / AGENT).unlink()
    assert look_again(first, [str((folder / AGENT).resolve())]) is None


def test_files_linked_under_two_names_ask_for_a_full_look(config_folder: Any) -> None:
    """A write through one name is reported for that name only: the other must be looked at."""
    folder = config_folder.path
    os.link(folder / AGENT, folder / "agents" / "concierge_too.yaml")
    first = look(folder)
    assert first.shared
    assert look_again(first, [str((folder / AGENT).resolve())]) is None


def test_a_symbolic_link_in_the_set_asks_for_a_full_look(config_folder: Any) -> None:
    """A write to a link's target is reported for the target, which may be gone by then."""
    folder = config_folder.path
    target = folder / "agents" / "concierge.real"
    (folder / AGENT).rename(target)
    os.symlink(target.name, folder / AGENT)
    first = look(folder)
    assert first.shared
    target.unlink()
    assert look_again(first, [str(target.resolve())]) is None


def test_an_unreported_change_waits_for_a_full_look(config_folder: Any) -> None:
    """Reported paths are trusted: what the watcher did not report is caught by its next
    full look (the first wake-up, a poll, or any path that is not a file of the set)."""
    folder = config_folder.path
    reloader = Reloader(folder)
    reported = _edit(folder, "agents/claims.yaml", "Files", "Opens")
    _edit(folder, AGENT, "description:", "description: Edited.")
    assert reloader.reload(changed={reported}).outcome == "applied"
    assert "Edited." not in reloader.current.agents["concierge"].description
    assert reloader.reload().outcome == "applied"
    _assert_like_cold(reloader, folder)


def test_an_edit_that_keeps_the_set_facts_shares_the_rest_of_the_last_build(
    config_folder: Any,
) -> None:
    """Only the edited agent is new: the indexes, tables and other agents are the last
    build's own objects (the build was patched, not redone)."""
    folder = config_folder.path
    reloader = Reloader(folder)
    before = reloader.current
    changed = _edit(folder, *EDITS["description"])
    assert reloader.reload(changed={changed}).outcome == "applied"
    after = reloader.current
    assert after.agents["fraud_agent"] is not before.agents["fraud_agent"]
    assert all(after.agents[name] is agent for name, agent in before.agents.items()
               if name != "fraud_agent")
    assert after.tables is before.tables and after.keyword_index is before.keyword_index
    _assert_like_cold(reloader, folder)


def test_a_patched_build_moves_the_warnings_of_the_edited_file(config_folder: Any) -> None:
    """A warning located in the edited file follows its lines, as a cold load finds it."""
    folder = config_folder.path
    reloader = Reloader(folder)
    changed = _edit(folder, *EDITS["peers"])  # card_recommendation: a dead end
    assert reloader.reload(changed={changed}).outcome == "applied"
    warned = [found for found in reloader.current.warnings if found.code == "dead-end-agent"]
    assert warned and warned[0].file.endswith("card_recommendation.yaml")
    _edit(folder, EDITS["peers"][0], "name: card_recommendation",
          "# Cards.\nname: card_recommendation")  # one line more above the warning
    before = reloader.current
    assert reloader.reload(changed={changed}).outcome == "applied"
    assert reloader.current.tables is before.tables  # patched
    moved = [found for found in reloader.current.warnings if found.code == "dead-end-agent"]
    assert moved[0].line == warned[0].line + 1
    _assert_like_cold(reloader, folder)


@pytest.mark.slow
def test_the_watcher_serves_what_a_cold_load_gives(config_folder: Any, wait_for: Any) -> None:
    """End to end, events only: each edit reaches serving equal to a cold load."""
    folder = config_folder.path
    reloader = Reloader(folder)
    options = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None, settle_ms=20)
    with ConfigWatcher(reloader, options=options) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        for kind in ("description", "trigger", "peers"):
            applied = reloader.stats.applied
            _edit(folder, *EDITS[kind])
            wait_for(lambda: reloader.stats.applied > applied, f"the {kind} edit")  # noqa: B023
            _assert_like_cold(reloader, folder)
        serving, rejected = reloader.current, reloader.stats.rejected
        _edit(folder, AGENT, "name: concierge", "name: [concierge")
        wait_for(lambda: reloader.stats.rejected > rejected, "the rejection")
        assert reloader.current is serving and not reloader.stats.last_ok
        with pytest.raises(ConfigError):
            load_config(folder)
