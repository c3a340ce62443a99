"""How code reaches the todo watchers with `get_todo_registry()`: inside a handler, the running
pump's registry; anywhere else (start-up, admin code), one registry over every pump alive in
the process. It never registers watchers on its own or sends anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from engine.errors import UsageError
from engine.pump.todos import TodoRegistry, TodoWatcher, pump_registries

_CURRENT: ContextVar[TodoRegistry | None] = ContextVar("todo_registry", default=None)


class ProcessTodos(TodoRegistry):
    """The watchers of every pump alive in this process, as one registry. Thread and watcher
    ids are unique across pumps, so each call goes to the pump holding that thread or
    watcher; an id no pump holds finds nothing, as in a single pump's registry. Obtained
    before any pump starts, it still reaches the pumps started later."""

    def __len__(self) -> int:
        return sum(len(registry) for registry in pump_registries())

    def _holding(self, thread_id: str) -> TodoRegistry | None:
        return next((r for r in pump_registries() if r.holds(thread_id)), None)

    def holds(self, thread_id: str) -> bool:
        return self._holding(thread_id) is not None

    def register(
        self,
        thread_id: str,
        issuer: str,
        wait_for: str,
        from_listener: str | None = None,
        description: str = "",
    ) -> str:
        registry = self._holding(thread_id)
        if registry is None:
            raise UsageError(f"no running pump has thread {thread_id!r}: a watcher waits on "
                             "a live thread (a handler's metadata.thread_id)")
        return registry.register(thread_id, issuer, wait_for, from_listener, description)

    def get(self, watcher_id: str) -> TodoWatcher | None:
        found = (registry.get(watcher_id) for registry in pump_registries())
        return next((watcher for watcher in found if watcher is not None), None)

    def check(self, thread_id: str, payload_type: str, from_id: str) -> list[TodoWatcher]:
        registry = self._holding(thread_id)
        return [] if registry is None else registry.check(thread_id, payload_type, from_id)

    def get_raised_for(self, thread_id: str, agent: str) -> list[TodoWatcher]:
        registry = self._holding(thread_id)
        return [] if registry is None else registry.get_raised_for(thread_id, agent)

    def get_pending_for(self, thread_id: str, agent: str) -> list[TodoWatcher]:
        registry = self._holding(thread_id)
        return [] if registry is None else registry.get_pending_for(thread_id, agent)

    def close(self, watcher_id: str) -> bool:
        return any(registry.close(watcher_id) for registry in pump_registries())

    def close_threads(self, thread_ids: Iterable[str]) -> int:
        threads = list(thread_ids)
        return sum(registry.close_threads(threads) for registry in pump_registries())

    def clear(self) -> None:
        for registry in pump_registries():
            registry.clear()


PROCESS_TODOS = ProcessTodos()
"""What `get_todo_registry()` returns outside a handler."""


def get_todo_registry() -> TodoRegistry:
    """The todo registry of the pump running the calling handler (as in the handler contract's
    examples: `get_todo_registry().get_raised_for(metadata.thread_id, metadata.own_name)`);
    outside a handler (start-up, admin code), the watchers of every pump alive in the process
    (`ProcessTodos`). A pump's own registry is also `pump.todos`."""
    registry = _CURRENT.get()
    return PROCESS_TODOS if registry is None else registry


@contextmanager
def serving(todos: TodoRegistry) -> Iterator[None]:
    """Make `todos` what `get_todo_registry()` returns while a handler runs."""
    token = _CURRENT.set(todos)
    try:
        yield
    finally:
        _CURRENT.reset(token)
