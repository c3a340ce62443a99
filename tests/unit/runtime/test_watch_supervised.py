"""A watcher survives any exception in a reload: each stage fails in turn (an injected bug), the
failure is reported as a rejected reload (result, counter, event, log) and the next edit serves."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import listing, members
from engine.loading import pipeline
from engine.loading.incremental import loader, look
from engine.loading.loader import load_config
from engine.runtime import reload
from engine.runtime.engine import Engine
from engine.runtime.reload import Reloader, ReloadResult
from engine.runtime.watch import ConfigWatcher, WatchOptions
from tests.unit.runtime.conftest import ConfigFolder

FAST = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None)


class Injected(Exception):
    """The bug a test plants in one stage."""


def _boom(*_args: Any, **_kwargs: Any) -> Any:
    raise Injected("planted in this stage")


def _edit_agent(folder: ConfigFolder, text: str) -> None:
    """Give claims a new description (an edit the incremental reload patches in)."""
    claims = folder.path / "agents" / "claims.yaml"
    lines = claims.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = f"description: {text}\n"
    folder.save(claims, "".join(lines))


def _edit_set(folder: ConfigFolder, target: str, text: str) -> None:
    """Change a rule's target and an agent's description (every stage runs again)."""
    folder.save(folder.routing, (folder.path / f"../routing-{target}.yaml").read_text("utf-8"))
    _edit_agent(folder, text)



def _edit_root(folder: ConfigFolder, target: str, text: str) -> None:
    """Change engine.yaml's description too (its includes are expanded again)."""
    root = folder.path / "engine.yaml"
    lines = root.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = [f"description: {text}\n" if line.startswith("description:") else line
             for line in lines]
    folder.save(root, "".join(lines))
    _edit_set(folder, target, text)


STAGES: dict[str, tuple[Any, tuple[str, ...], Callable[..., None]]] = {
    # stage: (module, names replaced by the failing stand-in, the edit that reaches the stage)
    "look": (look, ("look", "look_again"), _edit_set),
    "read": (loader, ("read_source",), _edit_set),
    "parse": (members, ("parse_text",), _edit_set),
    "validate": (members, ("validate_document",), _edit_set),
    "include": (listing, ("expand_includes",), _edit_root),
    "build-agent": (members, ("build_agent",), _edit_set),
    "build-set": (pipeline, ("build_config",), _edit_set),
    "link": (pipeline, ("link_config",), _edit_set),
    "topology": (pipeline, ("shadowed_rules", "agent_warnings"), _edit_set),
    "compile": (pipeline, ("compile_snapshot",), _edit_set),
    "patch": (loader, ("patched",), lambda folder, _target, text: _edit_agent(folder, text)),
    "settle": (reload, ("wait_quiet",), _edit_set),
    "swap": (Reloader, ("_swap",), _edit_set),
}


@pytest.fixture
def folder(config_folder: ConfigFolder) -> ConfigFolder:
    """The banking copy, with its two routing variants beside it."""
    from tests.unit.runtime.conftest import routing_for

    for target in ("investment_advisor", "compliance_desk"):
        (config_folder.path.parent / f"routing-{target}.yaml").write_text(
            routing_for(target), encoding="utf-8")
    return config_folder


@pytest.fixture
def watched(folder: ConfigFolder, wait_for: Any) -> Iterator[tuple[Reloader, list[ReloadResult]]]:
    reloader = Reloader(folder.path)
    results: list[ReloadResult] = []
    with ConfigWatcher(reloader, options=FAST, on_result=results.append) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        yield reloader, results
    assert not any(t.name == "handoff-config-watch" for t in threading.enumerate())


def _internal_errors(result: ReloadResult) -> list[str]:
    return [issue.message for issue in result.issues if issue.code == "internal-error"]


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_failing_stage_is_a_rejected_reload_and_the_watch_goes_on(
    stage: str, folder: ConfigFolder, watched: Any, wait_for: Any,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    reloader, results = watched
    module, names, edit = STAGES[stage]
    events: list[str] = []
    reloader.hooks.add("config_rejected", lambda event: events.append(event.name))
    serving = reloader.current
    with monkeypatch.context() as planted:
        for name in names:
            planted.setattr(module, name, _boom)
        edit(folder, "investment_advisor", "Files claims (first edit).")
        wait_for(lambda: reloader.stats.rejected, f"the {stage} failure to be rejected")
        wait_for(lambda: results and results[-1].outcome == "rejected", "the result callback")
    assert reloader.current is serving and not reloader.stats.last_ok
    assert reloader.stats.applied == 0 and {result.outcome for result in results} == {"rejected"}
    found = _internal_errors(results[-1])
    assert found and "Injected: planted in this stage" in found[0], results[-1].issues
    assert events and set(events) == {"config_rejected"}
    assert any(record.exc_info and record.exc_info[0] is Injected for record in caplog.records)
    edit(folder, "compliance_desk", "Files claims (second edit).")
    version = load_config(folder.path).version
    wait_for(lambda: reloader.current.version == version, "the next edit to serve")
    # the result callback runs after the swap: wait for it too
    wait_for(lambda: results[-1].version == version, "the result callback")
    assert reloader.stats.last_ok and results[-1].outcome == "applied"


def test_a_failing_result_callback_does_not_stop_the_watch(
    folder: ConfigFolder, wait_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    reloader = Reloader(folder.path)
    calls: list[str] = []

    def callback(result: ReloadResult) -> None:
        calls.append(result.outcome)
        raise Injected("the callback fails")

    with ConfigWatcher(reloader, options=FAST, on_result=callback) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        folder.write_routing("investment_advisor")
        wait_for(lambda: calls == ["applied"], "the first callback")
        version = folder.write_routing("compliance_desk")
        wait_for(lambda: reloader.current.version == version and len(calls) == 2, "the next one")
    assert any(record.levelno == logging.ERROR for record in caplog.records)


def test_the_watch_itself_failing_is_logged_and_watched_again(
    folder: ConfigFolder, wait_for: Any, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Even the file-watching layer raising something unexpected only restarts the watch."""
    from engine.runtime import watch

    reloader = Reloader(folder.path)
    real = watch.watchfiles.watch
    failures = [Injected("the OS watch failed")]

    def flaky(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(watch.watchfiles, "watch", flaky)
    with ConfigWatcher(reloader, options=FAST) as watcher:
        wait_for(watcher.ready.is_set, "the watch to start again")
        version = folder.write_routing("investment_advisor")
        wait_for(lambda: reloader.current.version == version, "the edit to serve")
    assert any(record.exc_info and record.exc_info[0] is Injected for record in caplog.records)


@pytest.mark.parametrize("stage", ["link", "swap"])
def test_the_async_watcher_survives_a_failing_stage(
    stage: str, folder: ConfigFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = Engine(folder.path)
    serving = engine.snapshot
    module, names, edit = STAGES[stage]

    async def until(predicate: Callable[[], object], what: str) -> None:
        for _ in range(1000):
            if predicate():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"timed out waiting for {what}")

    async def main() -> str:
        async with engine.watcher(options=FAST) as watcher:
            await until(watcher.ready.is_set, "the watch to start")
            with monkeypatch.context() as planted:
                for name in names:
                    planted.setattr(module, name, _boom)
                await asyncio.to_thread(edit, folder, "investment_advisor", "First edit.")
                await until(lambda: engine.reloader.stats.rejected, "the rejection")
            assert engine.snapshot is serving
            await asyncio.to_thread(edit, folder, "compliance_desk", "Second edit.")
            version = load_config(folder.path).version
            await until(lambda: engine.version == version, "the next edit to serve")
            return version

    with engine:
        assert asyncio.run(main()) == engine.version


def test_check_reports_a_failing_stage_as_a_located_issue(
    folder: ConfigFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loader `handoff check` runs: a bug in a file's stage names that file; the others
    are still checked."""
    from engine.loading.loader import check_paths

    real = members.validate_document

    def fails_on_claims(document: Any, schema: Any) -> Any:
        if document.file.endswith("claims.yaml"):
            raise Injected("planted for one file")
        return real(document, schema)

    monkeypatch.setattr(members, "validate_document", fails_on_claims)
    result = check_paths([folder.path])
    assert [(Path(issue.file).name, issue.code) for issue in result.errors] == [
        ("claims.yaml", "internal-error")]
