"""Event hooks: sync and async callables through one path; a failing hook never breaks emit."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from engine.runtime.hooks import Event, Hooks
from tests.patience import HANG_S


def test_sync_and_async_hooks_both_run_without_a_loop() -> None:
    seen: list[str] = []

    async def async_hook(event: Event) -> None:
        await asyncio.sleep(0)
        seen.append("async:" + event.name)

    hooks = Hooks()
    hooks.add("config_reloaded", lambda event: seen.append("sync:" + event.name))
    hooks.add("config_reloaded", async_hook)
    hooks.emit(Event("config_reloaded"))
    assert seen == ["sync:config_reloaded", "async:config_reloaded"]


def test_async_hooks_run_on_the_bound_loop_when_emitted_from_another_thread() -> None:
    ran_on: list[int] = []

    async def main() -> None:
        hooks = Hooks()
        hooks.bind_loop(asyncio.get_running_loop())
        done = asyncio.Event()

        async def hook(event: Event) -> None:
            ran_on.append(threading.get_ident())
            done.set()

        hooks.add("handoff_created", hook)
        thread = threading.Thread(target=hooks.emit, args=(Event("handoff_created"),))
        thread.start()
        await asyncio.wait_for(done.wait(), HANG_S)
        thread.join()
        assert ran_on == [threading.get_ident()]

    asyncio.run(main())


def test_a_failing_hook_is_logged_and_the_next_still_runs(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[str] = []

    def broken(event: Event) -> None:
        raise RuntimeError("boom")

    hooks = Hooks()
    hooks.add("handoff_moved", broken)
    hooks.add("handoff_moved", lambda event: seen.append(event.name))
    with caplog.at_level(logging.ERROR, logger="engine.hooks"):
        hooks.emit(Event("handoff_moved"))
    assert seen == ["handoff_moved"]
    assert "handoff_moved failed" in caplog.text


def test_unknown_event_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown event 'config_changed'"):
        Hooks().add("config_changed", lambda event: None)
