"""Counters and reports of a pump: what was handled, refused, dropped, and left in flight.

Plain records only; the pump fills them. Nothing here awaits or routes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class PumpStats:
    """A snapshot of the pump's counters. `injected`: conversations started from outside;
    `delivered`: messages put on a listener's queue; `handled`: handler calls finished;
    `replies`: replies handed to outside senders; `errors`: SystemErrors by code; `dropped`:
    messages not delivered, by reason (`terminated`: their thread ended first; `limit`: the
    conversation hit its message budget; `uncollected_reply`: a reply to an outside sender
    that nobody collects; `overrun`: the late answer of a handler that blocked the event loop
    past its timeout; `shutdown`); `in_flight`: messages queued or running now."""

    injected: int
    handled: int
    delivered: int
    replies: int
    errors: Mapping[str, int]
    dropped: Mapping[str, int]
    in_flight: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "injected": self.injected,
            "handled": self.handled,
            "delivered": self.delivered,
            "replies": self.replies,
            "errors": dict(self.errors),
            "dropped": dict(self.dropped),
            "in_flight": self.in_flight,
        }


@dataclass(frozen=True, slots=True)
class InFlight:
    """A message the pump still held at shutdown (queued, or `running` in its handler)."""

    to: str
    from_id: str
    thread_id: str
    payload_type: str
    running: bool


@dataclass(frozen=True, slots=True)
class ShutdownReport:
    """How a shutdown went: `drained` is True when nothing was left in flight."""

    drained: bool
    in_flight: tuple[InFlight, ...]
    stats: PumpStats


@dataclass(slots=True)
class Counters:
    """Mutable counters owned by one pump."""

    injected: int = 0
    handled: int = 0
    delivered: int = 0
    replies: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)

    def add(self, errors: Iterable[str], dropped: Iterable[str]) -> None:
        for code in errors:
            self.errors[code] += 1
        for reason in dropped:
            self.dropped[reason] += 1

    def snapshot(self, in_flight: int) -> PumpStats:
        return PumpStats(
            injected=self.injected,
            handled=self.handled,
            delivered=self.delivered,
            replies=self.replies,
            errors=MappingProxyType(dict(self.errors)),
            dropped=MappingProxyType(dict(self.dropped)),
            in_flight=in_flight,
        )
