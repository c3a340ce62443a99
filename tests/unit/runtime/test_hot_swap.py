"""The promise of hot reload: while files are broken, fixed and swapped underneath it, a thread
routing continuously never fails and never observes a half-applied config."""

from __future__ import annotations

import os
import shutil
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.routing import RouteRequest
from engine.runtime.engine import Engine
from engine.runtime.watch import WatchOptions

FAST = WatchOptions(debounce_ms=20, tick_ms=50, poll_interval_s=None)


class Router(threading.Thread):
    """Routes the card-shopping request in a loop and checks every answer against the
    target that the decision's own config version must produce."""

    def __init__(self, engine: Engine, text: str, expected: dict[str, str]) -> None:
        super().__init__(name="test-router", daemon=True)
        self.engine, self.expected = engine, expected
        self.request = RouteRequest(sender="concierge", text=text)
        self.text = text
        self.stop = threading.Event()
        self.seen: Counter[str] = Counter()
        self.failures: list[str] = []

    def run(self) -> None:
        count = 0
        while not self.stop.is_set():
            count += 1
            try:
                self.check_one(count)
            except Exception as error:  # every failure is a test failure, reported below
                self.failures.append(repr(error))
            self.stop.wait(0.0002)  # leave the builds some CPU: this is a check, not a load test

    def check_one(self, count: int) -> None:
        decision = self.engine.route(self.request)
        if self.expected.get(decision.config_version) != decision.target:
            self.failures.append(f"{decision.config_version} routed to {decision.target}")
        self.seen[decision.config_version] += 1
        if count % 20 == 0:  # a full handoff too: its record carries a valid version
            record = self.engine.handoff(self.text, sender="concierge").record
            version = record.config_version or ""
            if self.expected.get(version) != record.request.to_agent:
                self.failures.append(f"record {version} -> {record.request.to_agent}")


@pytest.mark.slow
def test_routes_never_fail_nor_see_a_half_applied_config(
    config_folder: Any, tmp_path: Path, wait_for: Any
) -> None:
    expected = {version: target for target, version in config_folder.versions.items()}
    engine = Engine(config_folder.path)
    stats = lambda: engine.reloader.stats  # noqa: E731
    router = Router(engine, config_folder.shopping, expected)

    def serve(target: str) -> None:
        wait_for(lambda: engine.version == config_folder.versions[target], f"{target} to serve")

    def rejected(action: Any) -> None:
        before = stats().rejected
        action()
        wait_for(lambda: stats().rejected > before, "a rejection")

    watcher = engine.watcher(options=FAST)
    with watcher:
        wait_for(watcher.ready.is_set, "the watch to start")
        router.start()
        for round_ in range(1):
            config_folder.write_routing("investment_advisor")
            serve("investment_advisor")
            for kind in ("yaml", "schema", "dangling"):
                rejected(lambda kind=kind: config_folder.break_routing(kind))
            claims = config_folder.path / "agents" / "claims.yaml"
            text = claims.read_text(encoding="utf-8")
            rejected(claims.unlink)
            claims.write_text(text, encoding="utf-8")
            config_folder.write_routing("compliance_desk")
            serve("compliance_desk")
            # the whole folder deleted and recreated with other content
            config_folder.copy_as("card_recommendation", tmp_path / f"next{round_}")
            shutil.rmtree(config_folder.path)
            shutil.copytree(tmp_path / f"next{round_}", config_folder.path)
            serve("card_recommendation")
            # the folder swapped by rename
            config_folder.copy_as("investment_advisor", tmp_path / f"swap{round_}")
            os.rename(config_folder.path, tmp_path / f"old{round_}")
            os.rename(tmp_path / f"swap{round_}", config_folder.path)
            serve("investment_advisor")
            config_folder.write_routing("card_recommendation")
            serve("card_recommendation")
        router.stop.set()
        router.join(5)
    assert router.failures == []
    assert set(router.seen) == set(expected), router.seen  # every valid version was observed
    assert sum(router.seen.values()) > 100
    assert stats().rejected >= 4 and stats().last_ok
    engine.close()
