"""The records that flow through the pump: envelopes, handler-call outcomes and the limits.
Plain data only; the router fills them and the pump delivers them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Envelope:
    """One message in flight. `thread_id` is the thread in which `to` runs; for a reply to the
    conversation's external initiator (`external=True`) it is the conversation's root id.
    `trace` is the trace context of the code that sent it, when the pump is observed."""

    to: str
    from_id: str
    thread_id: str
    payload: Any
    root: str
    external: bool = False
    forward: bool = False
    trace: Mapping[str, str] | None = None


@dataclass(slots=True)
class Outcome:
    """What one handler call produced: envelopes to deliver, SystemError codes raised,
    reasons for dropped messages, the threads it terminated, and how the handler's own thread
    ended: `failure` (a SystemError code) or `replied` with `reply` (after `.respond()`)."""

    envelopes: list[Envelope] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    terminated: tuple[str, ...] = ()
    replied: bool = False
    reply: Any = None
    failure: str = ""


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps that keep a misbehaving handler from flooding the pump."""

    max_fanout: int = 16
    max_depth: int = 64
    max_strikes: int = 3
    max_hops: int = 10_000
