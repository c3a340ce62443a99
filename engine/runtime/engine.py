"""`Engine`: the one object a runtime holds: hot-reloadable snapshot, router, lifecycle manager,
store and hooks. `handoff()` = route + policy + record (a refusal is an audited `rejected`
record). Synchronous; the async edge (watching) lives in `watch.py`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from engine.config.snapshot import Snapshot
from engine.errors import UsageError
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest, HandoffStatus
from engine.routing import Layer, Reason, RouteDecision, Router, RouteRequest
from engine.runtime.context import build_handoff_system_vars
from engine.runtime.hooks import Event, Hook, Hooks
from engine.runtime.payloads import PayloadRefusal, check_payload
from engine.runtime.reload import Loader, Reloader, ReloadResult
from engine.runtime.replicas import event_data, forward_remote_changes
from engine.runtime.session import Session
from engine.runtime.waiting import StatusWaiter
from engine.runtime.watch import ConfigWatcher, WatchOptions
from engine.stores import MemoryStore, Store, open_store


@dataclass(frozen=True, slots=True)
class HandoffOutcome:
    """What `Engine.handoff` did: the routing decision, the audited record, and for a routed
    handoff the system vars to give the agent taking over."""

    decision: RouteDecision
    record: HandoffRecord
    system_vars: Mapping[str, Any]
    refusal: PayloadRefusal | None = None

    @property
    def target(self) -> str | None:
        """The agent taking over, or None when policy or the payload check refused it."""
        return None if self.refusal is not None else self.decision.target

    @property
    def accepted_by_policy(self) -> bool:
        return self.target is not None


def _decide(router: Router, request: RouteRequest, session: Session | None) -> RouteDecision:
    if session is None:
        return router.route(request)
    if request.tool is not None and request.tool in session.removed_handoffs:
        return _removed_tool(request, session, router.snapshot.version)
    return router.route(request, history=session.history)


def _removed_tool(request: RouteRequest, session: Session, version: str) -> RouteDecision:
    detail = f"handoff tool {request.tool!r} was removed in session {session.session_id}"
    return RouteDecision(
        None, Layer.trigger, None, (), (), (), Reason.unknown_target, detail, version, request
    )


def _open_store(store: Store | str | Path | None) -> Store:
    if store is None:
        return MemoryStore()
    return open_store(store) if isinstance(store, (str, Path)) else store


class Engine:
    """Routes handoffs and tracks their records on a hot-reloadable config.

    `Engine("configs/banking", store="handoffs.sqlite")` loads the config (raising
    `ConfigError` if it is invalid) and opens a SQLite store (a postgresql:// URL opens a
    `PostgresStore` shared with other replicas); without `store` records are kept in memory.
    Use it as a context manager, or call `close()`.
    """

    def __init__(
        self,
        config: str | Path,
        *,
        store: Store | str | Path | None = None,
        actor: str = "engine",
        load: Loader | None = None,
    ) -> None:
        self.hooks = Hooks()
        self._watchers: list[ConfigWatcher] = []
        self._reloader = Reloader(config, load=load, hooks=self.hooks)
        self._router = Router(self._reloader.current)
        policies = self.snapshot.config.engine.policies
        self.manager = HandoffManager(
            store=_open_store(store), pending_timeout_s=policies.pending_timeout_s, actor=actor
        )
        self.hooks.add("config_reloaded", self._on_reload)
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
        timeout = self.snapshot.config.engine.policies.pending_timeout_s
        self.manager.pending_timeout = timedelta(seconds=timeout)

    def router(self) -> Router:
        """The router of the serving snapshot (built once per snapshot)."""
        router, snapshot = self._router, self._reloader.current
        if router.snapshot is not snapshot:
            router = self._router = Router(snapshot)
        return router

    # -- sessions and routing --------------------------------------------------------------
    def session(
        self,
        *,
        session_id: str | None = None,
        active_agent: str | None = None,
        system_vars: Mapping[str, Any] | None = None,
    ) -> Session:
        """A new conversation, starting on `active_agent` or the config's entry agent."""
        return Session(
            lambda: self._reloader.current,
            session_id=session_id, active_agent=active_agent, system_vars=system_vars,
        )

    def route(self, request: RouteRequest, *, session: Session | None = None) -> RouteDecision:
        """Decide who takes `request` without creating a record (what `--explain` shows)."""
        history = session.history if session is not None else ()
        return self.router().route(request, history=history)

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
    ) -> HandoffOutcome:
        """Route a handoff and record it. With a `session`, the sender defaults to its active
        agent, the session's history feeds the loop guard, a routed handoff moves the session
        to its target, and `tool` is resolved through the session's handoff map."""
        sender = sender or (session.active_agent if session is not None else None)
        if sender is None:
            raise UsageError("handoff needs a sender or a session")
        router = self.router()  # one snapshot for the whole handoff, even across a reload
        if session is not None and tool is not None and target is None:
            target = session.get_handoff_target(tool)
        request = RouteRequest(
            sender=sender, text=text, tool=tool, target=target,
            context=dict(context or {}), priority=priority,
        )
        decision = _decide(router, request, session)
        refusal = check_payload(
            router.snapshot, sender=sender, target=decision.target, payload=tool_args
        )
        record = self._record(decision, refusal, deadline=deadline, actor=actor)
        system_vars: Mapping[str, Any] = {}
        if decision.target is not None and refusal is None:
            if session is not None:
                returning = decision.target == session.previous_agent
                session.record_hop(
                    decision.target, record_id=record.record_id, returning=returning, routed=True
                )
            system_vars = self._system_vars(
                router.snapshot, decision, session, text, tool_args, tool_result
            )
        self.hooks.emit(Event("handoff_created", event_data(record, decision=decision)))
        return HandoffOutcome(decision, record, system_vars, refusal)

    def _record(
        self,
        decision: RouteDecision,
        refusal: PayloadRefusal | None,
        *,
        deadline: datetime | None,
        actor: str | None,
    ) -> HandoffRecord:
        request = decision.request
        refused = decision.candidates[0].agent if decision.candidates else ""
        wanted = decision.target or request.target or refused
        record = self.manager.create_handoff(
            HandoffRequest(
                from_agent=request.sender, to_agent=wanted, task_description=request.text,
                context=dict(request.context), priority=request.priority, deadline=deadline,
            ),
            config_version=decision.config_version, actor=actor,
        )
        if refusal is not None:
            rejection: str | None = refusal.response_reason
        elif decision.target is None:
            reason = decision.rejection.value if decision.rejection else "no_route"
            rejection = f"{reason}: {decision.detail}"
        else:
            rejection = None
        if rejection is not None:
            record = self.manager.reject(record.record_id, rejection, actor=actor or "policy")
        return record

    def _system_vars(
        self,
        snapshot: Snapshot,
        decision: RouteDecision,
        session: Session | None,
        text: str,
        tool_args: Mapping[str, Any] | None,
        tool_result: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        assert decision.target is not None
        agent = snapshot.agents[decision.target]
        system_vars = build_handoff_system_vars(
            source_agent=decision.request.sender,
            target_agent=decision.target,
            tool_result=tool_result or {"handoff_context": dict(decision.request.context)},
            tool_args=tool_args or {},
            current_system_vars=session.system_vars if session is not None else {},
            user_last_utterance=text or None,
            policy=agent.context,
        )
        greeting = agent.metadata.get("greeting")
        if isinstance(greeting, str):
            system_vars["greeting"] = greeting
        if session is not None:
            session.system_vars.update(system_vars)
        return system_vars

    # -- lifecycle moves (the manager's, plus events) ---------------------------------------
    def accept(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        return self._moved(self.manager.accept(record_id, actor=actor))

    def start(self, record_id: str, *, actor: str | None = None) -> HandoffRecord:
        return self._moved(self.manager.start(record_id, actor=actor))

    def complete(
        self, record_id: str, result: Mapping[str, Any], *, actor: str | None = None
    ) -> HandoffRecord:
        return self._moved(self.manager.complete(record_id, dict(result), actor=actor))

    def reject(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._moved(self.manager.reject(record_id, reason, actor=actor))

    def fail(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._moved(self.manager.fail(record_id, reason, actor=actor))

    def cancel(self, record_id: str, reason: str, *, actor: str | None = None) -> HandoffRecord:
        return self._moved(self.manager.cancel(record_id, reason, actor=actor))

    def _moved(self, record: HandoffRecord) -> HandoffRecord:
        self.hooks.emit(Event("handoff_moved", event_data(record)))
        return record

    def wait_status(
        self, record_id: str, *statuses: HandoffStatus | str, timeout_s: float | None = None
    ) -> HandoffRecord:
        """Block until the record is in one of `statuses` or can no longer get there, moved
        by any replica; `WaitTimeout` after `timeout_s`. `await_status` is the async form."""
        return self.waiter.wait(record_id, statuses, timeout_s=timeout_s)

    async def await_status(
        self, record_id: str, *statuses: HandoffStatus | str, timeout_s: float | None = None
    ) -> HandoffRecord:
        return await self.waiter.await_(record_id, statuses, timeout_s=timeout_s)

    # -- resources -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the watcher threads this engine handed out, then close the store."""
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
