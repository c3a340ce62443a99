"""`Engine`: the one object a runtime holds: hot-reloadable snapshot, router, lifecycle manager,
store and hooks. `handoff()` = route + policy + record (a refusal is an audited `rejected`
record), run by `procedure.py` on the state held here. Synchronous; the async edge (watching)
lives in `watch.py`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import HandoffExpired, UsageError
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffStatus, Sweeper, Trigger
from engine.routing import RouteDecision, Router, RouteRequest
from engine.routing.snapshot import Snapshot
from engine.runtime import handoff, procedure
from engine.runtime.call import HandoffCall
from engine.runtime.handoff import CallerPolicy
from engine.runtime.handoff import HandoffOutcome as HandoffOutcome
from engine.runtime.hooks import Event, Hook, Hooks
from engine.runtime.inputs import check_move
from engine.runtime.observing import Observing
from engine.runtime.reload import Loader, Reloader, ReloadResult
from engine.runtime.replicas import event_data, forward_remote_changes
from engine.runtime.session import Session
from engine.runtime.waiting import StatusWaiter
from engine.runtime.watch import ConfigWatcher
from engine.runtime.watch_options import WatchOptions
from engine.stores import MemoryStore, Store, open_store

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from engine.observer.seam import Observer, Observers

DEFAULT_SWEEP_INTERVAL_S = 1.0
"""How often an Engine's sweeper expires overdue handoffs, in seconds."""


def _open_store(store: Store | str | Path | None) -> Store:
    if store is None:
        return MemoryStore()
    return open_store(store) if isinstance(store, (str, Path)) else store


class Engine:
    """Routes handoffs and tracks their records on a hot-reloadable config.

    `Engine("configs/banking", store="handoffs.sqlite")` loads the config (raising
    `ConfigError` if it is invalid) and opens a SQLite store (a postgresql:// URL opens a
    `PostgresStore` shared with other replicas); without `store` records are kept in memory.
    Overdue handoffs are expired by a `Sweeper` thread every `sweep_interval_s` seconds (None:
    no sweeper; a move on an overdue record still expires it first). Use it as a context
    manager, or call `close()`.
    `observe()` and `metrics()` make it report every handoff, lifecycle move and reload
    (traces, metrics, logs: `engine.observability`).
    """

    def __init__(
        self,
        config: str | Path,
        *,
        store: Store | str | Path | None = None,
        actor: str = "engine",
        load: Loader | None = None,
        sweep_interval_s: float | None = DEFAULT_SWEEP_INTERVAL_S,
    ) -> None:
        if sweep_interval_s is not None and not sweep_interval_s > 0:
            raise UsageError(f"sweep interval must be > 0 or None, got {sweep_interval_s!r}")
        self.hooks = Hooks()
        self._observing: Observing | None = None
        self._watchers: list[ConfigWatcher] = []
        self._reloader = Reloader(config, load=load, hooks=self.hooks)
        self._router = Router(self._reloader.current)
        self.manager = HandoffManager(store=_open_store(store), actor=actor)
        self._caller_policy = (self.snapshot, CallerPolicy.of(self.snapshot))
        handoff.configure(self.manager, self.snapshot, self._caller_policy[1])
        self.hooks.add("config_reloaded", self._on_reload)
        self.sweeper: Sweeper | None = None
        if sweep_interval_s is not None:
            self.sweeper = Sweeper(
                self.manager, interval_s=sweep_interval_s, on_expired=self._moved
            ).start()
        self.waiter = StatusWaiter(self.manager.store)
        self._stop_forwarding = forward_remote_changes(self.manager.store, self.hooks)

    # -- config ----------------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        """The snapshot serving now. Hold on to it to see one consistent config."""
        return self._reloader.current

    @property
    def version(self) -> str:
        return self._reloader.current.version

    @property
    def store(self) -> Store:
        """Where this engine's records are kept."""
        return self.manager.store

    @property
    def reloader(self) -> Reloader:
        return self._reloader

    def reload(self, *, force: bool = False) -> ReloadResult:
        """Re-read the config now; an invalid one is rejected and the old one keeps serving."""
        return self._reloader.reload(force=force)

    def watcher(self, *, options: WatchOptions | None = None) -> ConfigWatcher:
        """A watcher that hot-reloads this engine (`with` for a thread, `async with` for a task).
        `close()` stops the thread form of every watcher still running."""
        watcher = ConfigWatcher(self._reloader, options=options or WatchOptions())
        self._watchers.append(watcher)
        return watcher

    def on(self, event: str, hook: Hook) -> None:
        """Call `hook(Event)` on `handoff_created`, `handoff_moved`, `config_reloaded` or
        `config_rejected`. Sync and async callables both work."""
        self.hooks.add(event, hook)

    def _on_reload(self, event: Event) -> None:
        self._policy(self.snapshot)  # the new expiry and redaction policies apply to every write

    def router(self) -> Router:
        """The router of the serving snapshot (built once per snapshot)."""
        router, snapshot = self._router, self._reloader.current
        if router.snapshot is not snapshot:
            router = self._router = Router(snapshot)
        return router

    # -- sessions and routing --------------------------------------------------------------
    def session(self, *, session_id: str | None = None, active_agent: str | None = None,
                system_vars: Mapping[str, Any] | None = None) -> Session:
        """A new conversation, starting on `active_agent` or the config's entry agent."""
        return Session(
            lambda: self._reloader.current,
            session_id=session_id, active_agent=active_agent, system_vars=system_vars,
        )

    def route(self, request: RouteRequest, *, session: Session | None = None) -> RouteDecision:
        """Decide who takes `request` without creating a record (what `--explain` shows).
        A request whose text, context, names or priority break the config's `input_limits`
        is refused before routing, as `handoff` refuses it (no layer, `detail` says why)."""
        router = self.router()
        return handoff.route_checked(router, self._policy(router.snapshot).limits, request,
                                     session)

    def handoff(
        self,
        text: str = "",
        *,
        session: Session | None = None,
        sender: str | None = None,
        tool: str | None = None,
        target: str | None = None,
        context: Mapping[str, Any] | None = None,
        priority: int = 5,
        deadline: datetime | None = None,
        tool_args: Mapping[str, Any] | None = None,
        tool_result: Mapping[str, Any] | None = None,
        actor: str | None = None,
        tool_call_id: str | None = None,
    ) -> HandoffOutcome:
        """Route a handoff and record it. With a `session`, the sender defaults to its active
        agent, the session's history feeds the loop guard, a routed handoff moves the session
        to its target, and `tool` is resolved through the session's handoff map.

        Never raises for bad caller data: input of the wrong type, not JSON data, over the
        config's `input_limits`, or from a sender the config does not know is refused
        (`invalid_input`, `unknown_sender`) as an audited `rejected` record holding a cut,
        sanitized copy. Only a call without a sender and without a session is a UsageError.

        `tool_call_id`: the model's id of the tool call that asked for this handoff, for traces
        (`gen_ai.tool.call.id`) and logs; never stored."""
        if sender is None and session is not None:
            sender = session.active_agent
        if sender is None:
            raise UsageError("handoff needs a sender or a session")
        call = HandoffCall(
            sender=sender, session=session, text=text, tool=tool, target=target,
            context=context, priority=priority, deadline=deadline, tool_args=tool_args,
            tool_result=tool_result, actor=actor, tool_call_id=tool_call_id,
        )
        observing = self._observing
        if observing is None:
            return self._handoff(call)
        return observing.handoff(self._handoff, call)

    def _handoff(self, call: HandoffCall) -> HandoffOutcome:
        router = self.router()  # one snapshot for the whole handoff, even across a reload
        policy = self._policy(router.snapshot)
        return procedure.run(call, router, policy, self.manager, self.hooks)

    def _policy(self, snapshot: Snapshot) -> CallerPolicy:
        cached = self._caller_policy
        if cached[0] is not snapshot:
            cached = self._caller_policy = (snapshot, CallerPolicy.of(snapshot))
            handoff.configure(self.manager, snapshot, cached[1])
        return cached[1]

    # -- observability ---------------------------------------------------------------------
    @property
    def observer(self) -> Observers | None:
        """The observers this engine reports to (None until `observe` or `metrics` is called).
        Give it to `Pump(..., observer=engine.observer)` to see a pump's messages too."""
        return None if self._observing is None else self._observing.observers

    def observe(self, observer: Observer) -> None:
        """Report every handoff, lifecycle move and reload to `observer` from now on (e.g. an
        `OTelObserver`, a `JsonLogObserver`). Without any, the engine pays nothing."""
        if self._observing is None:
            self._observing = Observing(self)
        self._observing.add(observer)

    def metrics(self, *, registry: CollectorRegistry | None = None) -> CollectorRegistry:
        """This engine's Prometheus registry (extra `prometheus`; `MissingExtra` without it).
        The first call starts counting, into `registry` or a fresh one; later calls return it."""
        if self._observing is None:
            self._observing = Observing(self)
        return self._observing.metrics(registry)

    # -- lifecycle moves (the manager's, plus events) ---------------------------------------
    # A move on an overdue record expires it first: the expiry is emitted, HandoffExpired raised.
    def accept(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        return self._move(record_id, Trigger.accept, actor=actor)

    def start(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        return self._move(record_id, Trigger.start, actor=actor)

    def complete(
        self, record_id: str, result: Mapping[str, Any], *, actor: str | None = None
    ) -> HandoffRecord:
        return self._move(record_id, Trigger.complete, result=result, actor=actor)

    def reject(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._move(record_id, Trigger.reject, reason=reason, actor=actor)

    def fail(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._move(record_id, Trigger.fail, reason=reason, actor=actor)

    def cancel(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._move(record_id, Trigger.cancel, reason=reason or "Cancelled.", actor=actor)

    def _move(self, record_id: str, trigger: Trigger, *, reason: str = "",
              result: Mapping[str, Any] | None = None, actor: str | None = None) -> HandoffRecord:
        check_move(self._policy(self.snapshot).limits, record_id, trigger.value,
                   reason=reason, result=result, actor=actor)
        result = None if result is None else dict(result)
        try:
            record = self.manager.move(record_id, trigger, reason=reason, result=result,
                                       actor=actor)
        except HandoffExpired as expired:
            self._moved(expired.record)
            raise
        self._moved(self.manager.stored_form(record))
        return record

    def _moved(self, record: HandoffRecord) -> HandoffRecord:
        self.hooks.emit(Event("handoff_moved", event_data(record)))
        return record

    def wait_status(
        self, record_id: str, *statuses: HandoffStatus | str, timeout_s: float | None = None
    ) -> HandoffRecord:
        """Block until the record is in one of `statuses` or can no longer get there, moved
        by any replica; `WaitTimeout` after `timeout_s`. `await_status` is the async form."""
        return self.manager.delivered(self.waiter.wait(record_id, statuses, timeout_s=timeout_s))

    async def await_status(
        self, record_id: str, *statuses: HandoffStatus | str, timeout_s: float | None = None
    ) -> HandoffRecord:
        found = await self.waiter.await_(record_id, statuses, timeout_s=timeout_s)
        return self.manager.delivered(found)

    # -- resources -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the sweeper and the watcher threads this engine handed out, then close the
        store. Waits at most for one sweep in progress."""
        if self.sweeper is not None:
            self.sweeper.stop()
        for watcher in self._watchers:
            watcher.stop()
        self._watchers.clear()
        self._stop_forwarding()
        self.waiter.close()
        self.manager.store.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
