"""The vocabulary every layer shares: handoff records, requests and statuses (`models`), what
a store can keep (`limits`), and the `Store` protocol with its query (`store`).

The bottom of the package graph: it imports nothing of the engine but `engine.errors`.
Stores build on it; the lifecycle (which decides which moves are legal) builds on both.
"""

from __future__ import annotations

from engine.records.models import (
    FailureReason,
    HandoffRecord,
    HandoffRequest,
    HandoffResponse,
    HandoffStatus,
    Move,
)
from engine.records.store import RecordQuery, Store

__all__ = ["FailureReason", "HandoffRecord", "HandoffRequest", "HandoffResponse",
           "HandoffStatus", "Move", "RecordQuery", "Store"]
