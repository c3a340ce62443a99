"""The instrumentation seam: what the engine, its lifecycle manager, reloads and the pump tell
observers, as one `Observer` class whose every method does nothing, and `Observers`, the fan-out
the engine holds. It must not import a telemetry library; implementations live above it, in
`engine.observability` (and the Prometheus one `Engine.metrics()` builds, in `engine.metrics`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from engine.observer.facts import HandoffFacts, ReloadFacts
    from engine.observer.watched import (
        ObservedEngine,
        ObservedEnvelope,
        ObservedListener,
        ObservedOutcome,
        ObservedPump,
    )
    from engine.records.models import HandoffRecord

log = logging.getLogger("engine.observability")

Carrier = Mapping[str, str]
"""A trace context a pump message carries from hop to hop (W3C `traceparent` and friends)."""
Call = Callable[..., Any]
"""An observer's bound method, as `Observers` keeps it."""


class Observer:
    """Told about every handoff, lifecycle move, reload and pump message. Subclass it and
    override what you need: the defaults do nothing. A `*_started` call returns a token that
    the matching `*_finished` call gets back.

    Calls come from the thread doing the work (a handoff's caller, the sweeper, the watcher,
    the pump's loop), so implementations must be thread-safe and quick. An exception an
    observer raises is logged and never reaches the engine.
    """

    outermost: ClassVar[bool] = False
    """True for observers that make trace contexts current: they start first and finish last,
    so the others see their span as the current one (a log line carries its trace id)."""

    def attach(self, engine: ObservedEngine) -> None:
        """Watch `engine`: values read at collection time (records by status, reload counts,
        config version) come from it."""

    def handoff_started(self) -> Any:
        """`Engine.handoff` begins: before input checks, routing and recording (who sends
        what is known once the input is checked: see `handoff_finished`)."""
        return None

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        """`Engine.handoff` ends, after the record is written and hooks ran (or it raised)."""

    def record_moved(self, record: HandoffRecord) -> None:
        """A lifecycle move was written; `record.history[-1]` is the move."""

    def reload_started(self, facts: ReloadFacts) -> Any:
        """A reload was applied or rejected; reported once it is done (`facts.duration_s`
        says when it began). Unchanged reloads are only counted (`Reloader.stats`)."""
        return None

    def reload_finished(self, token: Any, facts: ReloadFacts) -> None:
        """Closes what `reload_started` opened."""

    def pump_started(self, pump: ObservedPump) -> None:
        """`pump` starts with this observer: queue depths and counters come from it."""

    def message_sent(self) -> Carrier | None:
        """A pump message is being sent from the current context: what it should carry."""
        return None

    def message_started(self, listener: ObservedListener, env: ObservedEnvelope) -> Any:
        """A pump handler is about to run on `env` (which carries its sender's context)."""
        return None

    def message_finished(self, token: Any, outcome: ObservedOutcome | None) -> None:
        """The handler's result was routed (`outcome` None if routing it raised)."""


class Observers(Observer):
    """Several observers as one, in start order (outermost first); finishes run in reverse.

    It calls only what a member overrides: the plan of who to call for each event is made when
    a member is added (a method replaced on a member afterwards is not seen), so a handoff
    watched by metrics alone never pays for the span hooks it does not use."""

    def __init__(self, observers: Iterable[Observer] = ()) -> None:
        self._all: tuple[Observer, ...] = ()
        self._calls: dict[str, tuple[tuple[Observer, Call], ...]] = {}
        self._pairs: dict[str, tuple[tuple[Observer, Call | None, Call | None], ...]] = {}
        for observer in observers:
            self.add(observer)

    @property
    def members(self) -> tuple[Observer, ...]:
        return self._all

    def add(self, observer: Observer) -> None:
        ordered = sorted((*self._all, observer), key=lambda member: not member.outermost)
        self._all = tuple(ordered)
        self._calls = {name: _calls(self._all, name) for name in _CALLS}
        self._pairs = {start: _pairs(self._all, start, finish) for start, finish in _PAIRS}

    def attach(self, engine: ObservedEngine) -> None:
        self._tell("attach", engine)

    def handoff_started(self) -> Any:
        return self._open("handoff_started")

    def handoff_finished(self, token: Any, facts: HandoffFacts) -> None:
        self._close("handoff_finished", token, facts)

    def record_moved(self, record: HandoffRecord) -> None:
        self._tell("record_moved", record)

    def reload_started(self, facts: ReloadFacts) -> Any:
        return self._open("reload_started", facts)

    def reload_finished(self, token: Any, facts: ReloadFacts) -> None:
        self._close("reload_finished", token, facts)

    def pump_started(self, pump: ObservedPump) -> None:
        self._tell("pump_started", pump)

    def message_sent(self) -> Carrier | None:
        carrier: dict[str, str] = {}
        for observer, sent in self._calls["message_sent"]:
            try:
                carrier.update(sent() or {})
            except Exception:
                log.exception("observer %r failed in message_sent", observer)
        return carrier or None

    def message_started(self, listener: ObservedListener, env: ObservedEnvelope) -> Any:
        return self._open("message_started", listener, env)

    def message_finished(self, token: Any, outcome: ObservedOutcome | None) -> None:
        self._close("message_finished", token, outcome)

    def _tell(self, name: str, *args: Any) -> None:
        for observer, call in self._calls[name]:
            try:
                call(*args)
            except Exception:
                log.exception("observer %r failed in %s", observer, name)

    def _open(self, name: str, *args: Any) -> list[tuple[Observer, Call, Any]]:
        """Start in order; the token is each member to finish with its finish method and its
        own token (a member added meanwhile is not finished, one that failed to start is
        skipped, one that does not override the finish is not told)."""
        opened = []
        for observer, start, finish in self._pairs[name]:
            try:
                token = None if start is None else start(*args)
            except Exception:
                log.exception("observer %r failed in %s", observer, name)
                continue
            if finish is not None:
                opened.append((observer, finish, token))
        return opened

    def _close(self, name: str, opened: list[tuple[Observer, Call, Any]], *args: Any) -> None:
        for observer, finish, token in reversed(opened):
            try:
                finish(token, *args)
            except Exception:
                log.exception("observer %r failed in %s", observer, name)


_CALLS = ("attach", "record_moved", "pump_started", "message_sent")
"""Events told once."""
_PAIRS = (("handoff_started", "handoff_finished"), ("reload_started", "reload_finished"),
          ("message_started", "message_finished"))
"""Events that open something, each with the event that closes it."""


def _calls(members: tuple[Observer, ...], name: str) -> tuple[tuple[Observer, Call], ...]:
    """The members that override `name`, in order, each with that method."""
    return tuple((member, call) for member in members
                 if (call := _overridden(member, name)) is not None)


def _pairs(members: tuple[Observer, ...], start: str, finish: str
           ) -> tuple[tuple[Observer, Call | None, Call | None], ...]:
    """The members that override `start` or `finish`, in order, each with those two methods
    (None where it keeps the default, which does nothing)."""
    found = ((member, _overridden(member, start), _overridden(member, finish))
             for member in members)
    return tuple(pair for pair in found if pair[1] is not None or pair[2] is not None)


def _overridden(member: Observer, name: str) -> Call | None:
    """`member.name`, or None when it is `Observer`'s do-nothing default."""
    method: Call = getattr(member, name)
    return None if getattr(method, "__func__", None) is getattr(Observer, name) else method
