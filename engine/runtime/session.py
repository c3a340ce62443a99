"""One conversation's routing state: active agent, seed 002 handoff-map overrides layered over the
serving snapshot (a reload shows through at once), hop history and return stack.
It never routes and never stores records; the Engine does that."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.routing.snapshot import Snapshot

SESSION_KEY = "session_id"
"""The handoff context key that names a record's session (records carry no session field):
adapters put it there, and the console finds a call's records by it."""


class AgentSource(Protocol):
    """What a session reads from its config: the agents and the trigger map (a `Snapshot`, or
    a fixed set of agents)."""

    @property
    def agents(self) -> Mapping[str, AgentSpec]: ...

    @property
    def handoff_map(self) -> Mapping[str, str]: ...


def entry_of(source: AgentSource) -> str:
    """Where a session starts: the config's entry, else the agent marked `is_entry_point`,
    else the first agent."""
    if isinstance(source, Snapshot):
        return source.config.engine.entry
    marked = [name for name, agent in source.agents.items() if agent.handoff.is_entry_point]
    if not marked and not source.agents:
        raise UsageError("a session needs at least one agent")
    return (marked or list(source.agents))[0]


@dataclass(frozen=True, slots=True)
class SessionHop:
    """One agent switch in a session: who handed off to whom, under which record."""

    source: str
    target: str
    record_id: str | None = None


@dataclass
class _Overrides:
    added: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


class Session:
    """Routing state of one voice or agent conversation. Safe to share between threads."""

    def __init__(
        self,
        snapshot: Callable[[], AgentSource],
        *,
        session_id: str | None = None,
        active_agent: str | None = None,
        system_vars: Mapping[str, Any] | None = None,
    ) -> None:
        self._snapshot = snapshot
        self.session_id = session_id or uuid.uuid4().hex
        self._lock = threading.Lock()
        self._overrides = _Overrides()
        self._hops: list[SessionHop] = []
        self._stack: list[str] = []
        self.system_vars: dict[str, Any] = dict(system_vars or {})
        self._active = active_agent or entry_of(snapshot())
        self._require_agent(self._active)

    # -- agents ----------------------------------------------------------------------------
    @property
    def active_agent(self) -> str:
        return self._active

    def set_active_agent(self, name: str) -> None:
        """Switch without a handoff record (e.g. restoring a saved session)."""
        self._require_agent(name)
        with self._lock:
            self._active = name

    def _require_agent(self, name: str, what: str = "agent") -> None:
        agents = self._snapshot().agents
        if name not in agents:
            raise UsageError(f"Unknown {what}: {name} (known: {', '.join(agents)})")

    # -- handoff map (seed 002 HandoffProvider) ---------------------------------------------
    @property
    def handoff_map(self) -> Mapping[str, str]:
        """The serving config's trigger map with this session's overrides (a read-only copy)."""
        base = self._snapshot().handoff_map
        with self._lock:
            merged = {k: v for k, v in base.items() if k not in self._overrides.removed}
            merged.update(self._overrides.added)
        return MappingProxyType(merged)

    def get_handoff_target(self, tool_name: str) -> str | None:
        return self.handoff_map.get(tool_name)

    def is_handoff_tool(self, tool_name: str) -> bool:
        return tool_name in self.handoff_map

    def update_handoff_map(self, tool_name: str, target_agent: str) -> None:
        """Route `tool_name` to `target_agent` in this session only; effective at once.
        Raises `UsageError` (a ValueError) `Unknown target agent: ...` for an unknown agent."""
        self._require_agent(target_agent, "target agent")
        with self._lock:
            self._overrides.removed.discard(tool_name)
            self._overrides.added[tool_name] = target_agent

    def remove_handoff(self, tool_name: str) -> bool:
        """Stop `tool_name` from handing off in this session. False if it was not mapped."""
        present = tool_name in self.handoff_map
        with self._lock:
            self._overrides.added.pop(tool_name, None)
            self._overrides.removed.add(tool_name)
        return present

    @property
    def removed_handoffs(self) -> frozenset[str]:
        """Tools `remove_handoff` took out of this session (until re-added)."""
        with self._lock:
            return frozenset(self._overrides.removed)

    # -- hops ------------------------------------------------------------------------------
    @property
    def hops(self) -> tuple[SessionHop, ...]:
        with self._lock:
            return tuple(self._hops)

    @property
    def history(self) -> tuple[tuple[str, str], ...]:
        """Past handoffs as `(from, to)` pairs, oldest first: what the router's loop guard reads."""
        with self._lock:
            return tuple((hop.source, hop.target) for hop in self._hops)

    @property
    def path(self) -> tuple[str, ...]:
        """Agents in the order they held the conversation, starting with the first."""
        with self._lock:
            if not self._hops:
                return (self._active,)
            return (self._hops[0].source, *(hop.target for hop in self._hops))

    def record_hop(
        self,
        target: str,
        *,
        record_id: str | None = None,
        returning: bool = False,
        routed: bool = False,
    ) -> SessionHop:
        """The conversation moved from the active agent to `target`. A `returning` hop goes
        back to the previous agent and takes it off the return stack instead of pushing.
        `routed`: the router already checked `target` on the snapshot that routed the hop (a
        reload since then may have removed it; the hop still happened)."""
        if not routed:
            self._require_agent(target)
        with self._lock:
            hop = SessionHop(self._active, target, record_id)
            self._hops.append(hop)
            if returning and self._stack and self._stack[-1] == target:
                self._stack.pop()
            else:
                self._stack.append(self._active)
            self._active = target
        return hop

    @property
    def previous_agent(self) -> str | None:
        """Who to return to: the agent that handed off to the active one."""
        with self._lock:
            return self._stack[-1] if self._stack else None
