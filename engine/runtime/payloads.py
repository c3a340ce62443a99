"""Handoff payloads checked against the target agent's `accepts.payload_schema` (via the guard).

Pure and fast: returns a typed `PayloadRefusal` or None; never routes, records or raises for a
bad payload. Compiled validators are cached per agent spec and dropped with their snapshot.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from engine.config.models import AcceptsSpec
from engine.errors import HandoffViolation
from engine.guard.contracts import Contract, as_contract
from engine.guard.payloads import payload_violation
from engine.routing.snapshot import Snapshot

INVALID_PAYLOAD = "invalid_payload"
"""The reason code of a handoff refused for its payload (record reason `invalid_payload: ...`)."""
DETAIL_CHARS = 4096
"""Longest refusal detail (and so record reason): a longer one is cut, ending in `...`."""


@dataclass(frozen=True, slots=True)
class PayloadRefusal:
    """A handoff payload that breaks the target's `payload_schema`: who sent it, to whom, and
    the guard's `HandoffViolation` (node = target, upstream = sender, field, suggestion)."""

    sender: str
    target: str
    violation: HandoffViolation
    reason: str = INVALID_PAYLOAD

    @property
    def field_path(self) -> str:
        return self.violation.field_path

    @property
    def suggestion(self) -> str | None:
        suggestion = self.violation.context.suggestion
        return None if suggestion is None else str(suggestion)

    @property
    def detail(self) -> str:
        """One line: where the payload broke the schema, what was expected, how to fix it
        (at most `DETAIL_CHARS` characters)."""
        context = self.violation.context
        text = (
            f"payload from {self.sender!r} to {self.target!r} breaks its schema at "
            f"{context.field_path}: {context.expected}"
        )
        text = f"{text}; suggestion: {self.suggestion}" if self.suggestion else text
        return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."

    @property
    def response_reason(self) -> str:
        """The rejected record's response reason: `invalid_payload: <detail>`."""
        return f"{self.reason}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for events, logs and `--format json`)."""
        return {
            "reason": self.reason,
            "sender": self.sender,
            "target": self.target,
            "detail": self.detail,
            "violation": self.violation.to_dict(),
        }


class _ContractCache:
    """Compiled payload contracts keyed by the identity of an immutable `AcceptsSpec`.

    An entry lives exactly as long as its spec (a weak reference drops it), so the cache never
    outgrows the snapshots still in use; identical schemas across reloads also share one
    compiled validator through the guard's content-keyed cache.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[AcceptsSpec], Contract]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, accepts: AcceptsSpec) -> Contract:
        key = id(accepts)
        entry = self._entries.get(key)
        if entry is not None and entry[0]() is accepts:
            return entry[1]
        assert accepts.payload_schema is not None
        contract = as_contract(accepts.payload_schema)
        self._entries[key] = (weakref.ref(accepts, self._dropper(key)), contract)
        return contract

    def _dropper(self, key: int) -> Any:
        entries = self._entries

        def drop(ref: weakref.ref[AcceptsSpec]) -> None:
            entry = entries.get(key)
            if entry is not None and entry[0] is ref:
                del entries[key]

        return drop


_CONTRACTS = _ContractCache()


def contract_cache_size() -> int:
    """How many compiled payload contracts are cached (one per live agent spec checked)."""
    return len(_CONTRACTS)


def check_payload(
    snapshot: Snapshot, *, sender: str, target: str | None, payload: Any
) -> PayloadRefusal | None:
    """Check a handoff's payload (the handoff tool's arguments) against `target`'s
    `accepts.payload_schema` in `snapshot`.

    None when the payload is valid, when `target` has no schema, when there is no target or
    it is unknown (routing refuses those), or when no payload was sent (`payload=None`: a
    handoff routed from text carries none). An empty payload is `{}`, and is checked.
    """
    if target is None or payload is None:
        return None
    agent = snapshot.agents.get(target)
    if agent is None or agent.accepts.payload_schema is None:
        return None
    contract = _CONTRACTS.get(agent.accepts)
    violation = payload_violation(contract, payload, target=target, source=sender)
    return None if violation is None else PayloadRefusal(sender, target, violation)
