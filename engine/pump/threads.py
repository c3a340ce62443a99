"""Thread registry: opaque UUIDs -> call chains kept as tuples of names (never dot-joined),
with response pruning and sub-thread termination. Synchronous; no queues, handlers or payloads.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass(slots=True)
class _Thread:
    chain: tuple[str, ...]
    parent: str | None
    root: str
    children: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Pruned:
    """Where a response goes: `target` (the caller) on `thread_id` (None when the caller is the
    conversation's external initiator), and every thread id that the response terminated."""

    target: str
    thread_id: str | None
    terminated: tuple[str, ...]


class ThreadRegistry:
    """Opaque thread ids -> call chains. The last name of a chain runs in that thread.

    Each send opens its own sub-thread, so parallel calls to the same peer never share or
    terminate each other's context; a response terminates the responder's thread and all of
    its descendants.
    """

    def __init__(self) -> None:
        self._threads: dict[str, _Thread] = {}

    def __len__(self) -> int:
        return len(self._threads)

    def __contains__(self, thread_id: object) -> bool:
        return thread_id in self._threads

    def start(self, initiator: str, target: str) -> str:
        """Open a new conversation: `initiator` (external) calls `target`."""
        thread_id = str(uuid.uuid4())
        self._threads[thread_id] = _Thread((initiator, target), None, thread_id)
        return thread_id

    def chain(self, thread_id: str) -> tuple[str, ...]:
        """The call chain of a live thread (for logs and tests; never shown to handlers)."""
        return self._get(thread_id).chain

    def root_of(self, thread_id: str) -> str:
        return self._get(thread_id).root

    def depth(self, thread_id: str) -> int:
        return len(self._get(thread_id).chain)

    def extend(self, thread_id: str, next_hop: str) -> str:
        """A new sub-thread in which `next_hop` runs, called from `thread_id`."""
        parent = self._get(thread_id)
        child_id = str(uuid.uuid4())
        self._threads[child_id] = _Thread((*parent.chain, next_hop), thread_id, parent.root)
        parent.children.add(child_id)
        return child_id

    def prune(self, thread_id: str) -> Pruned:
        """Prune the responder (last name) off the chain: route to the caller on the caller's
        thread, and terminate the responder's thread with all its sub-threads."""
        thread = self._get(thread_id)
        caller = thread.chain[-2]
        return Pruned(caller, thread.parent, self.terminate(thread_id))

    def terminate(self, thread_id: str) -> tuple[str, ...]:
        """Remove a thread and every descendant; returns the removed ids (none if unknown)."""
        thread = self._threads.get(thread_id)
        if thread is None:
            return ()
        if thread.parent is not None and thread.parent in self._threads:
            self._threads[thread.parent].children.discard(thread_id)
        removed: list[str] = []
        stack = [thread_id]
        while stack:
            current_id = stack.pop()
            current = self._threads.pop(current_id, None)
            if current is not None:
                removed.append(current_id)
                stack.extend(current.children)
        return tuple(removed)

    def _get(self, thread_id: str) -> _Thread:
        try:
            return self._threads[thread_id]
        except KeyError:
            raise KeyError(f"no live thread {thread_id!r}") from None
