"""Optional bridge: agent-to-agent sends of a pump become handoff lifecycle records
(pending -> accepted -> in_progress -> completed | failed | cancelled). It must not change
routing: lifecycle errors are logged and counted, never raised into the pump.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from engine.errors import EngineError
from engine.lifecycle import HandoffManager, HandoffRequest
from engine.pump.envelope import Envelope, Outcome
from engine.pump.registry import ListenerRegistry

log = logging.getLogger("engine.pump")


class HandoffBridge:
    """Keeps one lifecycle record per agent-to-agent send, keyed by the send's thread.

    Store writes run on the pump's loop; use a fast store (memory, SQLite on local disk).
    """

    def __init__(self, manager: HandoffManager, registry: ListenerRegistry) -> None:
        self.manager = manager
        self._agents = {n for n, listener in registry.listeners.items() if listener.agent}
        self._open: dict[str, str] = {}  # thread id -> record id
        self._started: set[str] = set()
        self.errors = 0

    @property
    def open_records(self) -> dict[str, str]:
        """Thread id -> record id of the handoffs still live."""
        return dict(self._open)

    def sent(self, env: Envelope) -> None:
        """A forward was queued: record it when both ends are agents."""
        if not (env.forward and env.from_id in self._agents and env.to in self._agents):
            return
        request = HandoffRequest(
            from_agent=env.from_id, to_agent=env.to,
            task_description=f"{type(env.payload).__name__} message via the pump",
            context={"thread_id": env.thread_id, "payload": _json(env.payload)},
        )
        record = self._call(lambda: self.manager.create_handoff(request, actor=env.from_id))
        if record is not None:
            self._open[env.thread_id] = record.record_id

    def started(self, env: Envelope) -> None:
        """The target's handler is about to run on the handoff's thread."""
        record_id = self._open.get(env.thread_id)
        if record_id is None or env.thread_id in self._started:
            return
        self._started.add(env.thread_id)
        self._call(lambda: self.manager.accept(record_id, actor=env.to))
        self._call(lambda: self.manager.start(record_id, actor=env.to))

    def settled(self, env: Envelope, outcome: Outcome) -> None:
        """After a handler call: close what it ended (its own thread, terminated sub-threads)."""
        own = self._open.get(env.thread_id)
        if own is not None and (outcome.failure or outcome.replied):
            self._close(env.thread_id)
            if outcome.failure:
                self._call(lambda: self.manager.fail(own, outcome.failure, actor=env.to))
            else:
                result = {"reply": _json(outcome.reply)}
                done = self._call(lambda: self.manager.complete(own, result, actor=env.to))
                if done is None:  # a reply no store could keep: the handoff fails, saying so
                    why = "the reply could not be recorded (see the engine log)"
                    self._call(lambda: self.manager.fail(own, why, actor=env.to))
        self.cancel(t for t in outcome.terminated if t != env.thread_id)

    def cancel(self, thread_ids: Iterable[str], reason: str = "") -> None:
        """Threads ended before their handoff finished (a caller replied, or shutdown)."""
        for thread_id in thread_ids:
            record_id = self._open.get(thread_id)
            if record_id is not None:
                self._close(thread_id)
                why = reason or "the calling thread ended before this handoff finished"
                self._call(functools.partial(self.manager.cancel, record_id, why))

    def ended(self, thread_ids: Iterable[str]) -> None:
        """The conversation finished: handoffs whose handler ran complete with no reply."""
        for thread_id in thread_ids:
            record_id = self._open.get(thread_id)
            if record_id is None:
                continue
            if thread_id in self._started:
                self._close(thread_id)
                self._call(functools.partial(self.manager.complete, record_id, {"reply": None}))
            else:
                self.cancel([thread_id])

    def shutdown(self) -> None:
        """The pump stopped: every handoff still live is cancelled."""
        self.cancel(list(self._open), "the pump shut down before this handoff finished")

    def _close(self, thread_id: str) -> None:
        self._open.pop(thread_id, None)
        self._started.discard(thread_id)

    def _call(self, action: Callable[[], Any]) -> Any:
        try:
            return action()
        except EngineError:
            self.errors += 1
            log.exception("handoff bridge: lifecycle update failed")
            return None


def _json(payload: Any) -> Any:
    if isinstance(payload, BaseModel):
        return payload.model_dump(mode="json")
    return payload
