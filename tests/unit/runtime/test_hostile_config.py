"""What a hostile config can do to a running engine: a payload pattern with nested quantifiers
meets hostile text, overflowing policy numbers reach a reload. Code that could hang runs in a
child process with a deadline."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError
from engine.loading.loader import load_config
from engine.runtime.engine import Engine
from engine.runtime.reload import Reloader
from engine.runtime.watch import ConfigWatcher, WatchOptions
from tests.patience import HANG_S
from tests.sandbox import run_python, watch
from tests.unit.config.helpers import config_set
from tests.unit.runtime.conftest import routing_for

Write = Callable[[dict[str, str]], Path]
ENTRY = "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\npeers: [b]\n"


@pytest.mark.slow
def test_a_nested_quantifier_pattern_refuses_hostile_payloads_at_once(write_files: Write) -> None:
    """9 s per handoff at 28 characters with a backtracking engine, hours at 40."""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(a+)+$"}}}
    agent_b = (
        "name: b\nhandoff: {trigger: go_b}\nterminal: true\n"
        f"accepts:\n  payload_schema: {json.dumps(schema)}\n"
    )
    root = config_set(write_files, {"a": ENTRY, "b": agent_b})
    result = run_python(
        f"""
        from engine.runtime.engine import Engine
        with Engine({str(root)!r}) as engine:
            hostile = engine.handoff(sender="a", tool="go_b", tool_args={{"code": "a" * 40 + "!"}})
            fine = engine.handoff(sender="a", tool="go_b", tool_args={{"code": "a" * 40}})
            print(hostile.target, hostile.refusal.field_path, hostile.record.status.value)
            print(fine.target)
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["None code rejected", "b"]


# -- files in the folder that the set does not include --------------------------------------

@pytest.mark.slow
def test_special_files_beside_the_set_never_hang_or_exhaust_the_engine(config_folder: Any) -> None:
    """A FIFO named notes.yaml (opening it blocks), cache.json -> /dev/zero (endless bytes)
    and a link to /usr (thousands of folders): none is part of the set, none is touched."""
    root = config_folder.path
    os.mkfifo(root / "notes.yaml")
    (root / "cache.json").symlink_to("/dev/zero")
    (root / "usr").symlink_to("/usr", target_is_directory=True)
    result = run_python(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        from engine.runtime.engine import Engine
        with Engine({str(root)!r}) as engine:
            print(engine.reload(force=True).outcome, len(engine.snapshot.agents))
        """,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["unchanged", "6"]


def test_the_engine_reads_only_the_files_of_its_set(config_folder: Any) -> None:
    root = config_folder.path
    (root / "usr").symlink_to("/usr", target_is_directory=True)
    (root / "notes.yaml").write_text("not: part of the set\n", encoding="utf-8")
    with watch() as activity:
        engine = Engine(root)
        engine.reload(force=True)
        engine.close()
    # Besides the set: the fitted-model cache (written the first time a set's examples are
    # fitted, read after that), whichever test fits them first.
    assert activity.outside(root, os.environ["HANDOFF_MODEL_CACHE"]) == []
    assert str(root / "notes.yaml") not in activity.opened
    assert not [path for path in activity.listed if "usr" in Path(path).parts]


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="counts Linux inotify watches")
def test_the_watcher_watches_the_set_folders_only(config_folder: Any, wait_for: Any) -> None:
    """Watching the folder recursively followed a link to /usr into ~16,000 inotify watches."""
    root = config_folder.path
    (root / "usr").symlink_to("/usr", target_is_directory=True)
    engine = Engine(root)
    with engine.watcher(options=WatchOptions(poll_interval_s=None)) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        assert 1 <= _inotify_watches() <= 4  # the set's folder and its agents/ folder
        config_folder.write_routing("investment_advisor")
        wait_for(lambda: engine.version == config_folder.versions["investment_advisor"], "reload")
    engine.close()


def _inotify_watches() -> int:
    count = 0
    for entry in Path("/proc/self/fdinfo").iterdir():
        with contextlib.suppress(OSError):
            count += entry.read_text().count("inotify wd:")
    return count


# -- numbers the build cannot use -------------------------------------------------------------

HOSTILE_TIMEOUTS = {".inf": "bad-number", ".nan": "bad-number", "1e999": "bad-number",
                    "1e308": "schema", "99999999999999999999": "bad-number", "-1": "schema"}


@pytest.mark.parametrize(("value", "code"), HOSTILE_TIMEOUTS.items())
def test_a_timeout_the_engine_cannot_use_never_starts_it(
    config_folder: Any, value: str, code: str
) -> None:
    _set_timeout(config_folder.path, value)
    with pytest.raises(ConfigError) as caught:
        Engine(config_folder.path)
    [found] = caught.value.issues
    assert (found.code, Path(found.file).name, found.line) == (code, "engine.yaml", 12)


def test_a_reload_applies_policies_everywhere_or_not_at_all(config_folder: Any) -> None:
    with Engine(config_folder.path) as engine:
        before = engine.version
        for value in HOSTILE_TIMEOUTS:
            _set_timeout(config_folder.path, value)
            assert engine.reload().outcome == "rejected"
            assert engine.version == before
            assert engine.manager.pending_timeout == timedelta(seconds=20)
        _set_timeout(config_folder.path, "604800")
        assert engine.reload().outcome == "applied"
        assert engine.snapshot.config.engine.policies.pending_timeout_s == 604800
        assert engine.manager.pending_timeout == timedelta(days=7)


def _set_timeout(root: Path, value: str) -> None:
    path = root / "engine.yaml"
    text = path.read_text(encoding="utf-8")
    start = text.index("pending_timeout_s:")
    end = text.index("\n", start)
    path.write_text(f"{text[:start]}pending_timeout_s: {value}{text[end:]}", encoding="utf-8")


# -- half-written files -----------------------------------------------------------------------

def _half_and_rest(text: str) -> tuple[str, str]:
    """Cut routing.yaml after its first rule: the first part alone is a valid config."""
    second_rule = text.index("\n  - id:", text.index("  - id:") + 1) + 1
    return text[:second_rule], text[second_rule:]


@pytest.mark.slow
def test_a_file_written_in_chunks_is_never_served_half_written(
    config_folder: Any, tmp_path: Path, wait_for: Any
) -> None:
    full = routing_for("investment_advisor")
    half, rest = _half_and_rest(full)
    half_copy = config_folder.copy_as("card_recommendation", tmp_path / "half")
    (half_copy / "routing.yaml").write_text(half, encoding="utf-8")
    half_version = load_config(half_copy).version  # valid: a prefix missing 7 of 8 rules
    settle_s = 2.0
    for _ in range(10):
        served, paused = _write_in_two_chunks(config_folder, half, rest, settle_s, wait_for)
        if paused < settle_s:
            break  # the premise held: the writer paused for less than the settle window
    else:  # a machine too busy to pause for less than 2 s ten times: no verdict to give
        raise AssertionError(f"the writer never paused for less than {settle_s} s")
    assert half_version not in served, f"paused {paused:.2f} s"
    assert served == [config_folder.versions["investment_advisor"]]


def _write_in_two_chunks(
    config_folder: Any, half: str, rest: str, settle_s: float, wait_for: Any
) -> tuple[list[str], float]:
    """Write routing.yaml in two chunks 0.6 s apart under a watcher with a `settle_s` window:
    the versions served, and how long the writer really paused (a busy machine may stretch
    it past the window, and then the half file may rightly be served)."""
    config_folder.routing.write_text(routing_for("card_recommendation"), encoding="utf-8")
    reloader = Reloader(config_folder.path)
    served: list[str] = []
    options = WatchOptions(settle_ms=int(settle_s * 1000), poll_interval_s=None)
    with ConfigWatcher(reloader, options=options, on_result=lambda r: served.append(r.version)):
        time.sleep(0.2)
        started = time.monotonic()  # from the truncation to the last chunk
        with open(config_folder.routing, "w", encoding="utf-8") as handle:
            handle.write(half)
            handle.flush()
            time.sleep(0.6)
            handle.write(rest)
            handle.flush()
            paused = time.monotonic() - started
        target = config_folder.versions["investment_advisor"]
        wait_for(lambda: reloader.current.version == target, "the full file")
    return served, paused


@pytest.mark.slow
def test_without_a_settle_window_a_paused_writer_serves_its_half_file(
    config_folder: Any, tmp_path: Path, wait_for: Any
) -> None:
    """What the settle window protects from (and why saving atomically is the real cure)."""
    half, rest = _half_and_rest(routing_for("investment_advisor"))
    half_copy = config_folder.copy_as("card_recommendation", tmp_path / "half")
    (half_copy / "routing.yaml").write_text(half, encoding="utf-8")
    half_version = load_config(half_copy).version
    reloader = Reloader(config_folder.path)
    options = WatchOptions(settle_ms=0, poll_interval_s=None)
    with ConfigWatcher(reloader, options=options):
        time.sleep(0.2)
        with open(config_folder.routing, "w", encoding="utf-8") as handle:
            handle.write(half)
            handle.flush()
            wait_for(lambda: reloader.current.version == half_version, "the half file served")
            handle.write(rest)
        target = config_folder.versions["investment_advisor"]
        wait_for(lambda: reloader.current.version == target, "the full file")
