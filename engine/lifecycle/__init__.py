"""Handoff lifecycle: records, the transition table, the manager and the sweeper.

Import from here; the submodules split the concepts (models, table, moves, manager, sweeper).
"""

from engine.lifecycle.manager import Clock, HandoffManager
from engine.lifecycle.models import (
    FailureReason,
    HandoffRecord,
    HandoffRequest,
    HandoffResponse,
    HandoffStatus,
    Move,
)
from engine.lifecycle.moves import MoveOrder
from engine.lifecycle.sweeper import Sweeper
from engine.lifecycle.table import TRANSITIONS, Trigger, mermaid

__all__ = [
    "TRANSITIONS",
    "Clock",
    "FailureReason",
    "HandoffManager",
    "HandoffRecord",
    "HandoffRequest",
    "HandoffResponse",
    "HandoffStatus",
    "Move",
    "MoveOrder",
    "Sweeper",
    "Trigger",
    "mermaid",
]
