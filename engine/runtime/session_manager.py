"""`SessionAgentManager`: a `Session` built the way the voice runtime built its per-session agent
registry, `SessionAgentManager(session_id=..., base_agents=..., memo_manager=...)`.

`base_agents` is a mapping of agent specs (fixed), a `Snapshot`, or an `Engine` (then a hot
reload shows through). A given `memo_manager` (anything with `get_context` / `set_context`)
gets the session's handoff map and active agent after each change and gives them back when a
manager is built again for the same session. Never routes; the Engine does that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.routing.snapshot import Snapshot, build_handoff_map
from engine.runtime.session import AgentSource, Session

REGISTRY_KEY = "agent_registry"


class BaseAgents:
    """A fixed set of agents as a session's config; a trigger declared twice is refused."""

    def __init__(self, agents: Mapping[str, AgentSpec]) -> None:
        triggers = [agent.handoff.trigger for agent in agents.values() if agent.handoff.trigger]
        repeated = sorted({trigger for trigger in triggers if triggers.count(trigger) > 1})
        if repeated:
            raise UsageError(f"handoff trigger(s) declared by several agents: "
                             f"{', '.join(repeated)}")
        self.agents: Mapping[str, AgentSpec] = MappingProxyType(dict(agents))
        self.handoff_map: Mapping[str, str] = MappingProxyType(build_handoff_map(agents))


def _source(base_agents: Any) -> Callable[[], AgentSource]:
    if isinstance(base_agents, Snapshot):
        return lambda: base_agents
    if isinstance(getattr(base_agents, "snapshot", None), Snapshot):  # an Engine
        return lambda: base_agents.snapshot
    if isinstance(base_agents, Mapping):
        fixed = BaseAgents(base_agents)
        return lambda: fixed
    raise UsageError("base_agents must be a mapping of agents, a Snapshot or an Engine, "
                     f"not {type(base_agents).__name__}")


class SessionAgentManager(Session):
    """A session with the voice runtime's per-session agent manager API on top."""

    def __init__(
        self,
        session_id: str,
        base_agents: Mapping[str, AgentSpec] | Snapshot | Any,
        memo_manager: Any = None,
        *,
        redis_mgr: Any = None,
        auto_persist: bool = True,
    ) -> None:
        super().__init__(_source(base_agents), session_id=session_id)
        self._memo = memo_manager
        self._redis = redis_mgr
        self._auto_persist = auto_persist
        self._restore()

    # -- agents ----------------------------------------------------------------------------
    def get_agent(self, name: str) -> AgentSpec:
        """The agent `name`; `UsageError` (a ValueError) `Unknown agent: ...` otherwise."""
        self._require_agent(name)
        return self._snapshot().agents[name]

    def get_base_agent(self, name: str) -> AgentSpec | None:
        return self._snapshot().agents.get(name)

    def list_agents(self) -> list[str]:
        return list(self._snapshot().agents)

    def set_active_agent(self, name: str) -> None:
        super().set_active_agent(name)
        self._mark_dirty()

    def update_handoff_map(self, tool_name: str, target_agent: str) -> None:
        super().update_handoff_map(tool_name, target_agent)
        self._mark_dirty()

    def remove_handoff(self, tool_name: str) -> bool:
        removed = super().remove_handoff(tool_name)
        self._mark_dirty()
        return removed

    # -- persistence through the runtime's memo ---------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """What is saved in the memo under `agent_registry`."""
        return {"session_id": self.session_id, "handoff_map": dict(self.handoff_map),
                "active_agent": self.active_agent}

    async def persist(self) -> None:
        """Write the state to the memo, and the memo to Redis when a `redis_mgr` was given."""
        if self._memo is not None:
            self._memo.set_context(REGISTRY_KEY, self.to_dict())
            if self._redis is not None:
                await self._memo.persist_to_redis_async(self._redis)

    def _mark_dirty(self) -> None:
        if self._memo is not None and self._auto_persist:
            self._memo.set_context(REGISTRY_KEY, self.to_dict())

    def _restore(self) -> None:
        saved = self._memo.get_context(REGISTRY_KEY) if self._memo is not None else None
        if not isinstance(saved, Mapping):
            return
        wanted = saved.get("handoff_map")
        if isinstance(wanted, Mapping):
            for tool in set(self.handoff_map) - set(wanted):
                Session.remove_handoff(self, tool)
            for tool, target in wanted.items():
                if self.handoff_map.get(tool) != target:
                    Session.update_handoff_map(self, str(tool), str(target))
        active = saved.get("active_agent")
        if isinstance(active, str):
            Session.set_active_agent(self, active)
