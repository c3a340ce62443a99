"""`AsyncEngine`: the `Engine` for an asyncio runtime. Every call that touches the store runs the
sync Engine's own method on one dedicated worker thread, so the event loop never waits on I/O;
pure calls (sessions, `route`) run inline. It adds no routing or lifecycle logic of its own."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from engine.lifecycle import HandoffRecord
from engine.routing.snapshot import Snapshot
from engine.runtime.engine import Engine
from engine.runtime.reload import ReloadResult
from engine.runtime.switch import switch_interval_lowered
from engine.stores import RecordQuery

P = ParamSpec("P")
R = TypeVar("R")


class _Inline(Generic[P, R]):
    """`AsyncEngine.x = _Inline(Engine.x)`: the wrapped engine's own (pure, fast) `x`, typed."""

    def __init__(self, method: Callable[Concatenate[Engine, P], R]) -> None:
        self._method = method
        functools.update_wrapper(self, method)  # type: ignore[arg-type]

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> _Inline[P, R]: ...

    @overload
    def __get__(self, owner: AsyncEngine, cls: type[Any]) -> Callable[P, R]: ...

    def __get__(self, owner: AsyncEngine | None, cls: type[Any]) -> Any:
        return self if owner is None else functools.partial(self._method, owner.engine)


class _OffLoop(Generic[P, R]):
    """`AsyncEngine.x = _OffLoop(Engine.x)`: an awaitable `x` with Engine.x's own signature and
    docs, run on the engine's store thread. One declaration per method, no copied logic."""

    def __init__(self, method: Callable[Concatenate[Engine, P], R]) -> None:
        self._method = method
        functools.update_wrapper(self, method)  # type: ignore[arg-type]

    @overload
    def __get__(self, owner: None, cls: type[Any]) -> _OffLoop[P, R]: ...

    @overload
    def __get__(
        self, owner: AsyncEngine, cls: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, R]]: ...

    def __get__(self, owner: AsyncEngine | None, cls: type[Any]) -> Any:
        if owner is None:
            return self
        bound: Callable[P, R] = self._method.__get__(owner.engine)

        @functools.wraps(bound)
        async def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return await owner.run(bound, *args, **kwargs)

        return call


def _store_thread() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="handoff-store")


class AsyncEngine:
    """An `Engine` whose store I/O never runs on the event loop.

    `await AsyncEngine.open("configs/banking", store="handoffs.sqlite")` loads the config and
    opens the store on the worker thread; `AsyncEngine(engine)` wraps an engine you built.
    `handoff`, the lifecycle moves and record reads are awaitables with the sync Engine's
    signatures and semantics; `session()` and `route()` are the Engine's own (pure, inline).
    Sync hooks run on the worker thread; async hooks run on the loop that uses this engine.
    """

    def __init__(self, engine: Engine, *, switch_interval_s: float | None = 0.001) -> None:
        self._start(engine, _store_thread(), switch_interval_s)

    def _start(
        self, engine: Engine, worker: ThreadPoolExecutor, switch_interval_s: float | None
    ) -> None:
        self.engine = engine
        self.switch_interval_s = switch_interval_s
        """While the store thread works, the interpreter's GIL switch interval is lowered to
        this (default 5 ms), so the loop waits at most ~1 ms for the GIL. None: leave it."""
        self._worker = worker
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    async def open(
        cls, config: str | Path, /, *, switch_interval_s: float | None = 0.001, **options: Any
    ) -> AsyncEngine:
        """Build the Engine (options as for `Engine`) off the loop, on the new store thread."""
        worker = _store_thread()
        build = functools.partial(Engine, config, **options)
        try:
            engine = await asyncio.get_running_loop().run_in_executor(worker, build)
        except BaseException:
            worker.shutdown(wait=False)
            raise
        self = cls.__new__(cls)
        self._start(engine, worker, switch_interval_s)
        return self

    async def run(self, function: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """Run `function(*args, **kwargs)` on the store thread and await its result."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # async hooks emitted on the worker go to this loop
            self._loop = loop
            self.engine.hooks.bind_loop(loop)
        return await loop.run_in_executor(
            self._worker, functools.partial(self._call, function, *args, **kwargs)
        )

    def _call(self, function: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        with switch_interval_lowered(self.switch_interval_s):
            return function(*args, **kwargs)

    # -- on the store thread ---------------------------------------------------------------
    handoff = _OffLoop(Engine.handoff)
    accept = _OffLoop(Engine.accept)
    start = _OffLoop(Engine.start)
    complete = _OffLoop(Engine.complete)
    reject = _OffLoop(Engine.reject)
    fail = _OffLoop(Engine.fail)
    cancel = _OffLoop(Engine.cancel)

    async def get(self, record_id: str) -> HandoffRecord:
        """The record with this id (`RecordNotFound` if none)."""
        return await self.run(self.engine.manager.get, record_id)

    async def query(self, query: RecordQuery | None = None) -> list[HandoffRecord]:
        """Records matching `query` (all by default), oldest first."""
        return await self.run(self.engine.manager.store.query, query or RecordQuery())

    async def reload(self, *, force: bool = False) -> ReloadResult:
        """Re-read the config on a thread of the loop's default executor: a reload's parsing
        never delays the handoffs queued on the store thread."""
        return await asyncio.to_thread(self.engine.reload, force=force)

    # -- inline: pure, no I/O --------------------------------------------------------------
    session = _Inline(Engine.session)
    route = _Inline(Engine.route)
    router = _Inline(Engine.router)
    on = _Inline(Engine.on)
    watcher = _Inline(Engine.watcher)  # `async with engine.watcher():` reloads in a task

    @property
    def snapshot(self) -> Snapshot:
        """The snapshot serving now."""
        return self.engine.snapshot

    # -- resources -------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Let queued calls finish, close the engine on the store thread, stop the thread."""
        try:
            await self.run(self.engine.close)
        finally:
            self._worker.shutdown(wait=False)

    async def __aenter__(self) -> AsyncEngine:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
