"""Event hooks: user callables, sync or async, for engine events; one helper awaits whatever a
hook returns, so both share one code path. A failing hook is logged, never breaks the engine."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("engine.hooks")

EVENTS = ("handoff_created", "handoff_moved", "config_reloaded", "config_rejected")


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened: `name` is one of `EVENTS`, `data` its payload."""

    name: str
    data: dict[str, Any] = field(default_factory=dict)


Hook = Callable[[Event], "Awaitable[None] | None"]
"""A hook may be a plain function or a coroutine function; both are awaited through `emit`."""


class Hooks:
    """Hooks by event name. `emit` runs sync hooks at once. Async ones go to the loop bound
    with `bind_loop` (thread-safely, from any thread), else to the loop running in this thread,
    else they run to completion in a private loop."""

    def __init__(self) -> None:
        self._hooks: dict[str, list[Hook]] = {name: [] for name in EVENTS}
        self._loop: asyncio.AbstractEventLoop | None = None

    def bind_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self._loop = loop

    def add(self, name: str, hook: Hook) -> None:
        if name not in self._hooks:
            raise ValueError(f"unknown event {name!r}; known: {', '.join(EVENTS)}")
        self._hooks[name].append(hook)

    def emit(self, event: Event) -> None:
        for hook in self._hooks[event.name]:
            try:
                result = hook(event)
            except Exception:
                log.exception("hook %r for %s failed", hook, event.name)
                continue
            if inspect.isawaitable(result):
                self._finish(result, event.name)

    def _finish(self, awaitable: Awaitable[Any], name: str) -> None:
        async def guarded() -> None:
            try:
                await awaitable
            except Exception:
                log.exception("async hook for %s failed", name)

        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        target = self._loop if self._loop is not None and not self._loop.is_closed() else running
        if target is None:
            asyncio.run(guarded())
        elif target is running:
            task = target.create_task(guarded())
            _PENDING.add(task)
            task.add_done_callback(_PENDING.discard)
        else:
            asyncio.run_coroutine_threadsafe(guarded(), target)


_PENDING: set[asyncio.Task[None]] = set()
