"""The record of one broken contract at an agent boundary: `ViolationContext` (seed 004).

Owns only the data and its rendering; deciding *whether* data is valid lives in `contracts`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from engine.errors import HandoffViolation
from engine.validation.shown import short_repr

__all__ = ["HandoffViolation", "ViolationContext"]

_RECEIVED_SHOWN = 100
_RECEIVED_LOGGED = 200


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True, slots=True)
class ViolationContext:
    """Where and why guarded data failed: the node, which contract, the field and a fix.

    `contract_type` is "input", "output" or "state"; `field_path` is dotted
    (`items.0.name`) or `<root>` for the whole value and `<parse>` for unparseable output.
    """

    node_name: str
    contract_type: str
    field_path: str
    expected: str
    received: Any
    received_type: str
    timestamp: datetime = field(default_factory=_now)
    upstream_node: str | None = None
    suggestion: str | None = None

    def __str__(self) -> str:
        lines = [
            f"HandoffViolation in '{self.node_name}':",
            f"  Contract: {self.contract_type}",
            f"  Field: {self.field_path}",
            f"  Expected: {self.expected}",
            f"  Received: {short_repr(self.received, _RECEIVED_SHOWN)} ({self.received_type})",
        ]
        if self.upstream_node:
            lines.append(f"  Upstream: {self.upstream_node}")
        if self.suggestion:
            lines.append(f"  Suggestion: {self.suggestion}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for logs and telemetry (`received` as a shortened repr)."""
        return {
            "node_name": self.node_name,
            "contract_type": self.contract_type,
            "field_path": self.field_path,
            "expected": self.expected,
            "received": short_repr(self.received, _RECEIVED_LOGGED),
            "received_type": self.received_type,
            "timestamp": self.timestamp.isoformat(),
            "upstream_node": self.upstream_node,
            "suggestion": self.suggestion,
        }
