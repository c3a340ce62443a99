# Over 300 lines on purpose: one class whose queues, workers and counts every method shares.
"""The async message pump: per-listener bounded queues and workers, timeouts, backpressure,
conversation bookkeeping and shutdown. Every envelope rule lives in `routing.Router`; this
module must not decide where a message goes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from types import TracebackType
from typing import Any, Protocol

from engine.errors import UsageError
from engine.observer.seam import Observer, Observers
from engine.pump.contract import SystemError
from engine.pump.envelope import Envelope, Limits, Outcome
from engine.pump.registry import SYSTEM_SENDER, Listener, ListenerRegistry
from engine.pump.routing import Router
from engine.pump.stats import Counters, InFlight, PumpStats, ShutdownReport
from engine.pump.timing import Overrun, call_handler
from engine.pump.todo_access import serving
from engine.pump.todos import TodoRegistry

log = logging.getLogger("engine.pump")

ReplyCallback = Callable[[str, Any, str], None]


class HandoffBridgeLike(Protocol):
    """What the pump tells a handoff recorder (see `engine.pump.bridge.HandoffBridge`)."""

    def sent(self, env: Envelope) -> None: ...
    def started(self, env: Envelope) -> None: ...
    def settled(self, env: Envelope, outcome: Outcome) -> None: ...
    def ended(self, thread_ids: Iterable[str]) -> None: ...
    def shutdown(self) -> None: ...


class Pump:
    """Runs registered listeners. Use as `async with Pump(registry) as pump:`; leaving the
    block shuts down gracefully (drains, then reports what was left).

    Backpressure: `inject`/`request` wait while the target's queue is full; a handler's send
    waits up to `send_timeout` for room, then its sender gets a SystemError `overload`.
    Replies and SystemErrors are never refused (they would otherwise be lost).
    `observer` (e.g. `engine.observer`) is told of each handler call, and each message carries
    the trace context of its sender.
    """

    def __init__(
        self,
        registry: ListenerRegistry,
        *,
        queue_size: int = 1000,
        send_timeout: float = 5.0,
        limits: Limits | None = None,
        on_reply: ReplyCallback | None = None,
        bridge: HandoffBridgeLike | None = None,
        observer: Observer | None = None,
    ) -> None:
        if queue_size < 1:
            raise UsageError(f"queue_size must be >= 1, got {queue_size}")
        self._router = Router(registry, limits=limits or Limits())
        self._listeners = dict(registry.listeners)
        self._queue_size = queue_size
        self._send_timeout = send_timeout
        self._on_reply = on_reply
        self._bridge = bridge
        # as one `Observers`: an observer that raises is logged and never stops a worker
        self._observer = (observer if observer is None or isinstance(observer, Observers)
                          else Observers([observer]))
        self._queues: dict[str, asyncio.Queue[Envelope]] = {}
        self._workers: list[asyncio.Task[None]] = []
        self._spills: dict[asyncio.Task[None], Envelope] = {}
        self._active: dict[int, Envelope] = {}
        self._conversations: dict[str, int] = {}
        self._waiters: dict[str, asyncio.Future[Any]] = {}
        self._counters = Counters()
        self._pending = 0
        self._idle: asyncio.Event | None = None
        self._state = "new"

    @property
    def todos(self) -> TodoRegistry:
        """The TodoUntil watchers (`get_raised_for`, `close`), as seed 001's todo registry."""
        return self._router.todos

    def stats(self) -> PumpStats:
        return self._counters.snapshot(self._pending)

    def queue_depths(self) -> dict[str, int]:
        """Messages waiting in each listener's queue now."""
        return {name: queue.qsize() for name, queue in self._queues.items()}

    async def __aenter__(self) -> Pump:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._state == "running":
            await self.shutdown(drain=exc is None)

    async def start(self) -> None:
        """Create the queues and `concurrency` workers per listener on the running loop."""
        if self._state != "new":
            raise UsageError(f"the pump cannot start: it is {self._state}")
        self._idle = asyncio.Event()
        self._idle.set()
        for name, listener in self._listeners.items():
            queue: asyncio.Queue[Envelope] = asyncio.Queue(self._queue_size)
            self._queues[name] = queue
            for _ in range(listener.concurrency):
                slot = len(self._workers)
                self._workers.append(asyncio.create_task(self._work(listener, queue, slot)))
        self._state = "running"
        if self._observer is not None:
            self._observer.pump_started(self)

    async def inject(self, target: str, payload: Any, *, sender: str = "client") -> str:
        """Send `payload` to `target` from outside; returns the new conversation's thread id.
        Replies to `sender` go to `on_reply(sender, payload, thread_id)`."""
        env = self._open(target, payload, sender)
        await self._admit(env)
        return env.thread_id

    async def request(
        self, target: str, payload: Any, *, sender: str = "client", timeout: float | None = None
    ) -> Any:
        """Send and wait for the reply to `sender`: the payload, a SystemError, or None when
        the conversation ended without replying. Raises TimeoutError after `timeout` s."""
        env = self._open(target, payload, sender)
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiters[env.root] = waiter
        await self._admit(env)
        return await asyncio.wait_for(waiter, timeout)

    async def join(self) -> None:
        """Wait until no message is queued or running."""
        if self._idle is not None:
            await self._idle.wait()

    async def shutdown(self, *, drain: bool = True, timeout: float = 5.0) -> ShutdownReport:
        """Stop accepting messages; with `drain`, wait up to `timeout` s for the pump to go idle;
        then stop the workers and report every message that was still in flight."""
        if self._state != "running":
            raise UsageError(f"the pump cannot shut down: it is {self._state}")
        self._state = "closing"
        if drain and self._idle is not None:
            try:
                await asyncio.wait_for(self._idle.wait(), timeout)
            except asyncio.TimeoutError:
                log.warning("shutdown: %d message(s) still in flight after %ss",
                            self._pending, timeout)
        self._state = "stopped"
        left = [_in_flight(env, running=True) for env in self._active.values()]
        tasks = [*self._workers, *self._spills]
        left += [_in_flight(env, running=False) for env in self._spills.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for queue in self._queues.values():
            while not queue.empty():
                left.append(_in_flight(queue.get_nowait(), running=False))
        if left:
            self._counters.dropped["shutdown"] += len(left)
        for item in left:
            log.warning("shutdown: undelivered message to %s from %s (%s, running=%s)",
                        item.to, item.from_id, item.payload_type, item.running)
        for waiter in self._waiters.values():
            if not waiter.done():
                waiter.set_result(SystemError(
                    code="shutdown", message="The pump shut down before a reply.",
                    retry_allowed=False,
                ))
        self._waiters.clear()
        if self._bridge is not None:
            self._bridge.shutdown()
        return ShutdownReport(not left, tuple(left), self.stats())

    def _open(self, target: str, payload: Any, sender: str) -> Envelope:
        if self._state != "running":
            raise UsageError(f"cannot send to {target!r}: the pump is {self._state}")
        env = self._router.open(target, payload, sender=sender)
        self._counters.injected += 1
        if self._observer is not None:
            env = replace(env, trace=self._observer.message_sent())
        return env

    async def _admit(self, env: Envelope) -> None:
        self._enter(env.root)
        await self._queues[env.to].put(env)
        self._counters.delivered += 1

    async def _work(self, listener: Listener, queue: asyncio.Queue[Envelope], slot: int) -> None:
        # The state check, not only cancellation, ends a worker: on Python 3.10,
        # `asyncio.wait_for` can swallow a cancel that lands as the handler finishes.
        while self._state != "stopped":
            env = await queue.get()
            self._active[slot] = env
            try:
                await self._process(listener, env)
            finally:
                del self._active[slot]
                self._leave(env.root)
            await asyncio.sleep(0)  # a handler that never awaits must not starve the loop

    async def _process(self, listener: Listener, env: Envelope) -> None:
        if env.thread_id not in self._router.threads:
            self._counters.dropped["terminated"] += 1
            return
        observer = self._observer
        if observer is None:
            await self._handle(listener, env)
            return
        token = observer.message_started(listener, env)
        outcome = None
        try:
            outcome = await self._handle(listener, env)
        finally:
            observer.message_finished(token, outcome)

    async def _handle(self, listener: Listener, env: Envelope) -> Outcome:
        router = self._router
        metadata = router.metadata(listener, env)
        if self._bridge is not None:
            self._bridge.started(env)
        try:
            with serving(router.todos):
                result = await call_handler(listener, env.payload, metadata)
        except asyncio.TimeoutError:
            log.warning("%s timed out after %ss", listener.name, listener.timeout)
            outcome = router.fail(listener, env, "timeout",
                                  "The handler did not answer in time.")
        except Overrun as overrun:
            log.warning(
                "%s answered after %.3fs, past its %ss timeout: it blocked the event loop "
                "(handlers must await; run blocking work with asyncio.to_thread); its answer "
                "is dropped", listener.name, overrun.elapsed, listener.timeout,
            )
            self._counters.dropped["overrun"] += 1
            outcome = router.fail(listener, env, "timeout",
                                  "The handler did not answer in time.")
        except Exception:
            log.exception("handler %s raised", listener.name)
            outcome = router.fail(listener, env, "handler",
                                  "The handler failed while processing the message.")
        else:
            outcome = router.route(listener, env, result)
        self._counters.handled += 1
        await self._apply(listener, env, outcome)
        if self._bridge is not None:
            self._bridge.settled(env, outcome)
        return outcome

    async def _apply(self, listener: Listener, origin: Envelope, outcome: Outcome) -> None:
        self._counters.add(outcome.errors, outcome.dropped)
        carrier = None if self._observer is None else self._observer.message_sent()
        for env in outcome.envelopes:
            if carrier is not None:
                env = replace(env, trace=carrier)
            if env.external:
                self._reply_out(env)
            elif await self._enqueue(env):
                if env.forward and self._bridge is not None:
                    self._bridge.sent(env)
            else:
                self._router.threads.terminate(env.thread_id)
                self._counters.errors["overload"] += 1
                error = SystemError(code="overload", message="The target is busy; retry later.")
                await self._enqueue(
                    Envelope(listener.name, SYSTEM_SENDER, origin.thread_id, error, origin.root)
                )

    async def _enqueue(self, env: Envelope) -> bool:
        queue = self._queues[env.to]
        self._enter(env.root)
        try:
            queue.put_nowait(env)
        except asyncio.QueueFull:
            if not env.forward:
                spill = asyncio.create_task(queue.put(env))
                self._spills[spill] = env
                spill.add_done_callback(self._spilled)
                return True
            try:
                await asyncio.wait_for(queue.put(env), self._send_timeout)
            except asyncio.TimeoutError:
                self._leave(env.root)
                return False
        self._counters.delivered += 1
        return True

    def _spilled(self, task: asyncio.Task[None]) -> None:
        self._spills.pop(task, None)
        if not task.cancelled():
            self._counters.delivered += 1

    def _reply_out(self, env: Envelope) -> None:
        waiter = self._waiters.pop(env.root, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(env.payload)
        elif self._on_reply is not None:
            self._on_reply(env.to, env.payload, env.thread_id)
        else:
            self._counters.dropped["uncollected_reply"] += 1
            log.info("reply to %s was not collected (no waiter, no on_reply)", env.to)
            return
        self._counters.replies += 1

    def _enter(self, root: str) -> None:
        self._conversations[root] = self._conversations.get(root, 0) + 1
        self._pending += 1
        if self._idle is not None:
            self._idle.clear()

    def _leave(self, root: str) -> None:
        self._pending -= 1
        left = self._conversations[root] - 1
        if left:
            self._conversations[root] = left
        else:
            del self._conversations[root]
            removed = self._router.end_conversation(root)
            if self._bridge is not None and self._state != "stopped":
                self._bridge.ended(removed)
            waiter = self._waiters.pop(root, None)
            if waiter is not None and not waiter.done() and self._state != "stopped":
                waiter.set_result(None)
        if self._pending == 0 and self._idle is not None:
            self._idle.set()


def _in_flight(env: Envelope, *, running: bool) -> InFlight:
    return InFlight(env.to, env.from_id, env.thread_id, type(env.payload).__name__, running)
