"""AsyncEngine: the sync Engine's handoff and moves, awaited; store I/O on one worker thread."""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ConfigError, IllegalTransition, RecordNotFound
from engine.lifecycle import HandoffStatus
from engine.routing import Reason, RouteRequest
from engine.runtime.async_engine import AsyncEngine
from engine.runtime.engine import Engine
from engine.runtime.hooks import Event
from engine.stores import RecordQuery, SQLiteStore
from tests.patience import HANG_S

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


def in_loop(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    """Run an async test body in a fresh event loop (fixtures pass through)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))  # type: ignore[arg-type]

    return run


def test_awaitables_keep_the_sync_engines_signatures_and_docs() -> None:
    sync = Engine(BANKING)
    engine = AsyncEngine(sync)
    for name in ("handoff", "accept", "start", "complete", "reject", "fail", "cancel",
                 "session", "route"):
        mine, theirs = getattr(engine, name), getattr(sync, name)
        assert inspect.signature(mine) == inspect.signature(theirs), name
    assert engine.handoff.__doc__ == Engine.handoff.__doc__
    assert inspect.iscoroutinefunction(engine.handoff)
    asyncio.run(engine.aclose())


@in_loop
async def test_handoff_is_routed_recorded_and_moved_like_the_sync_engine(tmp_path: Path) -> None:
    async with await AsyncEngine.open(BANKING, store=tmp_path / "h.sqlite") as engine:
        call = engine.session()
        outcome = await engine.handoff("my card was stolen", session=call)
        assert (outcome.target, outcome.decision.rule) == ("fraud_agent", "lost-or-stolen-card")
        assert call.active_agent == "fraud_agent"
        record_id = outcome.record.record_id
        await engine.accept(record_id)
        await engine.start(record_id)
        done = await engine.complete(record_id, {"ok": True})
        assert done.status is HandoffStatus.completed
        assert (await engine.get(record_id)).status is HandoffStatus.completed
        with pytest.raises(IllegalTransition):
            await engine.accept(record_id)
        with pytest.raises(RecordNotFound):
            await engine.get("nope")
    with SQLiteStore(tmp_path / "h.sqlite") as store:  # closed by aclose, readable again
        assert [r.status for r in store.query()] == [HandoffStatus.completed]


@in_loop
async def test_store_work_runs_on_the_worker_thread_and_async_hooks_on_the_loop() -> None:
    seen: dict[str, str] = {}
    loop_thread = threading.current_thread().name
    hooked = asyncio.Event()

    def sync_hook(event: Event) -> None:
        seen["sync"] = threading.current_thread().name

    async def async_hook(event: Event) -> None:
        seen["async"] = threading.current_thread().name
        hooked.set()

    async with await AsyncEngine.open(BANKING) as engine:
        engine.on("handoff_created", sync_hook)
        engine.on("handoff_created", async_hook)
        await engine.handoff("hello", sender="concierge", tool="handoff_claims")
        await asyncio.wait_for(hooked.wait(), HANG_S)
    assert seen["sync"].startswith("handoff-store") and seen["async"] == loop_thread


@in_loop
async def test_session_history_feeds_the_loop_guard_across_awaits() -> None:
    async with AsyncEngine(Engine(BANKING)) as engine:
        call = engine.session()
        tools = ("handoff_fraud_agent", "handoff_concierge") * 3
        outcomes = [await engine.handoff("x", session=call, tool=tool,
                                         tool_args={"reason": "again"}) for tool in tools]
        refused = [o for o in outcomes if o.target is None]
        assert refused and refused[0].decision.rejection is Reason.loop
        assert refused[0].record.status is HandoffStatus.rejected


@in_loop
async def test_concurrent_handoffs_from_many_tasks_are_all_recorded(tmp_path: Path) -> None:
    async with await AsyncEngine.open(BANKING, store=tmp_path / "h.sqlite") as engine:
        async def one(n: int) -> Any:
            return await engine.handoff(f"claim {n}", sender="concierge", tool="handoff_claims")

        outcomes = await asyncio.gather(*(one(n) for n in range(50)))
        assert {o.target for o in outcomes} == {"claims"}
        records = await engine.query(RecordQuery(agent="claims"))
        assert len(records) == 50


@in_loop
async def test_open_with_a_bad_config_raises_config_error(tmp_path: Path) -> None:
    (tmp_path / "engine.yaml").write_text("version: 1\nname: x\nentry: [\n", encoding="utf-8")
    before = {t.name for t in threading.enumerate()}
    with pytest.raises(ConfigError) as error:
        await AsyncEngine.open(tmp_path)
    assert "engine.yaml:" in str(error.value)
    await asyncio.sleep(0.05)
    leaked = {t.name for t in threading.enumerate()} - before
    assert not any(name.startswith("handoff-store") for name in leaked)


@in_loop
async def test_reload_runs_off_the_loop_and_routes_see_the_new_snapshot() -> None:
    async with AsyncEngine(Engine(BANKING)) as engine:
        result = await engine.reload(force=True)
        assert result.version == engine.snapshot.version
        decision = engine.route(RouteRequest("concierge", "my card was stolen"))
        assert decision.target == "fraud_agent"


@in_loop
async def test_gil_switch_interval_is_lowered_only_while_the_store_thread_works() -> None:
    before = sys.getswitchinterval()
    seen: list[float] = []
    async with await AsyncEngine.open(BANKING) as engine:
        engine.on("handoff_created", lambda event: seen.append(sys.getswitchinterval()))
        await engine.handoff("x", sender="concierge", tool="handoff_claims")
        assert sys.getswitchinterval() == before
    assert seen == [min(0.001, before)]
