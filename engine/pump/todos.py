"""TodoUntil watchers: an agent waits for a payload type on its thread and gets a `todo_nudge`;
the registry, the todo payloads and the built-in todo listeners. It never sends anything itself.
"""

from __future__ import annotations

import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ConfigDict

from engine.pump.payloads import PayloadSpec

TODO_LISTENER = "system.todo"
TODO_COMPLETE_LISTENER = "system.todo-complete"


class TodoUntil(BaseModel):
    """Register a watcher on the sender's thread: nudge me once `wait_for` arrives."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wait_for: str
    from_listener: str = ""
    description: str = ""


class TodoComplete(BaseModel):
    """Close a watcher by id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str


class TodoRegistered(BaseModel):
    """Acknowledgement of a TodoUntil, with the watcher id to close later."""

    model_config = ConfigDict(frozen=True)

    id: str
    wait_for: str
    description: str = ""


class TodoClosed(BaseModel):
    """Acknowledgement of a TodoComplete."""

    model_config = ConfigDict(frozen=True)

    id: str
    was_raised: bool = False


@dataclass(frozen=True, slots=True)
class TodoWatcher:
    """A pending todo: `issuer` waits on `thread_id` for a payload of type `wait_for`."""

    watcher_id: str
    thread_id: str
    issuer: str
    wait_for: str
    from_listener: str | None = None
    description: str = ""
    eyebrow_raised: bool = False
    triggered_from: str = ""

    @property
    def id(self) -> str:
        """The watcher id under the short name xml-pipeline used."""
        return self.watcher_id


class TodoRegistry:
    """Watchers by thread. Matching is on the exact payload type name (case-insensitive) and,
    if given, the exact sender name."""

    def __init__(self, *, owns: Callable[[str], bool] | None = None) -> None:
        """`owns` (given by a pump for its own registry) tells whether a thread is that pump's:
        such a registry is also reachable from outside handlers (see `get_todo_registry`)."""
        self._by_id: dict[str, TodoWatcher] = {}
        self._by_thread: dict[str, list[str]] = {}
        self._owns = owns
        if owns is not None:
            _PUMP_REGISTRIES.add(self)

    def holds(self, thread_id: str) -> bool:
        """Whether the thread is this registry's: its pump's, or one of its watchers'."""
        return thread_id in self._by_thread or (self._owns is not None and self._owns(thread_id))

    def __len__(self) -> int:
        return len(self._by_id)

    def register(
        self,
        thread_id: str,
        issuer: str,
        wait_for: str,
        from_listener: str | None = None,
        description: str = "",
    ) -> str:
        watcher_id = str(uuid.uuid4())
        self._by_id[watcher_id] = TodoWatcher(
            watcher_id, thread_id, issuer, wait_for, from_listener or None, description
        )
        self._by_thread.setdefault(thread_id, []).append(watcher_id)
        return watcher_id

    def get(self, watcher_id: str) -> TodoWatcher | None:
        return self._by_id.get(watcher_id)

    def check(self, thread_id: str, payload_type: str, from_id: str) -> list[TodoWatcher]:
        """Raise the eyebrow of every matching watcher on the thread; returns those raised now."""
        raised: list[TodoWatcher] = []
        wanted = payload_type.lower()
        for watcher_id in self._by_thread.get(thread_id, ()):
            watcher = self._by_id[watcher_id]
            if watcher.eyebrow_raised or watcher.wait_for.lower() != wanted:
                continue
            if watcher.from_listener is not None and watcher.from_listener != from_id:
                continue
            watcher = replace(watcher, eyebrow_raised=True, triggered_from=from_id)
            self._by_id[watcher_id] = watcher
            raised.append(watcher)
        return raised

    def get_raised_for(self, thread_id: str, agent: str) -> list[TodoWatcher]:
        return [w for w in self._watchers(thread_id) if w.issuer == agent and w.eyebrow_raised]

    def get_pending_for(self, thread_id: str, agent: str) -> list[TodoWatcher]:
        return [
            w for w in self._watchers(thread_id) if w.issuer == agent and not w.eyebrow_raised
        ]

    def close(self, watcher_id: str) -> bool:
        """Close a watcher; False if no watcher has this id."""
        watcher = self._by_id.pop(watcher_id, None)
        if watcher is None:
            return False
        ids = self._by_thread.get(watcher.thread_id, [])
        ids.remove(watcher_id)
        if not ids:
            del self._by_thread[watcher.thread_id]
        return True

    def close_all_for_thread(self, thread_id: str) -> int:
        """Close every watcher on one thread; returns how many."""
        return self.close_threads([thread_id])

    def clear(self) -> None:
        """Close every watcher."""
        self._by_id.clear()
        self._by_thread.clear()

    def format_nudge(self, watchers: list[TodoWatcher]) -> str:
        """The `todo_nudge` text for raised watchers ("" when there are none)."""
        return format_nudge(watchers)

    def close_threads(self, thread_ids: Iterable[str]) -> int:
        """Close every watcher on these (terminated) threads; returns how many."""
        closed = 0
        for thread_id in thread_ids:
            for watcher_id in self._by_thread.pop(thread_id, ()):
                self._by_id.pop(watcher_id, None)
                closed += 1
        return closed

    def _watchers(self, thread_id: str) -> list[TodoWatcher]:
        return [self._by_id[i] for i in self._by_thread.get(thread_id, ())]


_PUMP_REGISTRIES: weakref.WeakSet[TodoRegistry] = weakref.WeakSet()
"""The registries of the pumps alive in this process (a pump's goes when the pump does)."""


def pump_registries() -> list[TodoRegistry]:
    """The todo registries of the pumps alive in this process."""
    return list(_PUMP_REGISTRIES)


def format_nudge(watchers: list[TodoWatcher]) -> str:
    """The `todo_nudge` text for raised watchers ("" when there are none)."""
    if not watchers:
        return ""
    lines = ["SYSTEM NOTE: The following todos appear complete and should be closed:"]
    for w in watchers:
        desc = f", {w.description}" if w.description else ""
        lines.append(
            f"- watcher_id: {w.watcher_id} (registered for: {w.wait_for}{desc}; "
            f"received from {w.triggered_from})"
        )
    lines.append("Call todo_registry.close(watcher_id) to acknowledge (or send "
                 f"TodoComplete(id=watcher_id) to {TODO_COMPLETE_LISTENER}).")
    return "\n".join(lines)


_TODO_SPECS = {
    TODO_LISTENER: PayloadSpec.of_model(TodoUntil),
    TODO_COMPLETE_LISTENER: PayloadSpec.of_model(TodoComplete),
}


def serve_todo(
    todos: TodoRegistry, target: str, payload: Any, *, thread_id: str, issuer: str
) -> TodoRegistered | TodoClosed:
    """Handle a message to a built-in todo listener and return its acknowledgement.

    A TodoUntil watches the issuer's own thread, where the replies it waits for arrive.
    Raises PayloadRejected when the payload is not the listener's payload type.
    """
    value = _TODO_SPECS[target].validate(payload)
    if isinstance(value, TodoUntil):
        watcher_id = todos.register(
            thread_id, issuer, value.wait_for,
            from_listener=value.from_listener or None, description=value.description,
        )
        return TodoRegistered(id=watcher_id, wait_for=value.wait_for, description=value.description)
    assert isinstance(value, TodoComplete)
    watcher = todos.get(value.id)
    if watcher is None or watcher.issuer != issuer:
        return TodoClosed(id=value.id, was_raised=False)
    todos.close(value.id)
    return TodoClosed(id=value.id, was_raised=watcher.eyebrow_raised)
