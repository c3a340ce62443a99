"""Handoff lifecycle: records, the transition table, the manager and the sweeper.

Import from here; the submodules split the concepts (table, moves, manager, sweeper,
transfer); the records themselves live in `engine.records`, below the stores. Names load on
first use, so importing the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "TRANSITIONS": "engine.lifecycle.table",
    "Clock": "engine.lifecycle.clock",
    "Deadlines": "engine.lifecycle.expiry",
    "Deliver": "engine.lifecycle.delivery",
    "Expiry": "engine.lifecycle.expiry",
    "FailureReason": "engine.records.models",
    "HandoffManager": "engine.lifecycle.manager",
    "HandoffRecord": "engine.records.models",
    "HandoffRequest": "engine.records.models",
    "HandoffResponse": "engine.records.models",
    "HandoffStatus": "engine.records.models",
    "Move": "engine.records.models",
    "MoveOrder": "engine.lifecycle.moves",
    "SteadyClock": "engine.lifecycle.clock",
    "Sweeper": "engine.lifecycle.sweeper",
    "Trigger": "engine.lifecycle.table",
    "mermaid": "engine.lifecycle.table",
}

__all__ = [
    "TRANSITIONS",
    "Clock",
    "Deadlines",
    "Deliver",
    "Expiry",
    "FailureReason",
    "HandoffManager",
    "HandoffRecord",
    "HandoffRequest",
    "HandoffResponse",
    "HandoffStatus",
    "Move",
    "MoveOrder",
    "SteadyClock",
    "Sweeper",
    "Trigger",
    "mermaid",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine.lifecycle' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:
    from engine.lifecycle.clock import Clock, SteadyClock
    from engine.lifecycle.delivery import Deliver
    from engine.lifecycle.expiry import Deadlines, Expiry
    from engine.lifecycle.manager import HandoffManager
    from engine.lifecycle.moves import MoveOrder
    from engine.lifecycle.sweeper import Sweeper
    from engine.lifecycle.table import TRANSITIONS, Trigger, mermaid
    from engine.records.models import (
        FailureReason,
        HandoffRecord,
        HandoffRequest,
        HandoffResponse,
        HandoffStatus,
        Move,
    )
