"""Seed 000 parity: `AgentCapabilityRegistry` and `HandoffRouter`, same names and semantics.

One deliberate change from the seed: a task is never routed back to its sender, not even by
the capability match. The config-driven router is `engine.routing.Router`; this is the small
in-code API seed users already have.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from engine.records.models import HandoffRequest
from engine.routing.text import _extract_keywords


class AgentCapabilityRegistry(BaseModel):
    """Tracks available agents and their capabilities (seed 000)."""

    agents: dict[str, list[str]] = Field(default_factory=dict)

    def register(self, agent_id: str, capabilities: list[str]) -> None:
        """Register an agent; replaces any capabilities registered before for `agent_id`."""
        self.agents[agent_id] = list(capabilities)

    def unregister(self, agent_id: str) -> None:
        """Remove an agent; silently does nothing when it is not registered."""
        self.agents.pop(agent_id, None)

    def find_capable(self, required_capabilities: list[str]) -> list[str]:
        """Agents whose capabilities are a superset of `required_capabilities`, sorted by the
        number of matching capabilities (descending); ties keep registration order."""
        required = set(required_capabilities)
        capable = [
            agent_id for agent_id, caps in self.agents.items() if required.issubset(caps)
        ]
        return sorted(capable, key=lambda agent_id: -len(required & set(self.agents[agent_id])))


class HandoffRouter:
    """Routes a `HandoffRequest` to the best registered agent by capability match (seed 000)."""

    def __init__(self, registry: AgentCapabilityRegistry) -> None:
        self.registry = registry

    def route(
        self, request: HandoffRequest, preferred_capabilities: list[str] | None = None
    ) -> str | None:
        """The best agent for `request`, never `request.from_agent`; None when none is left.

        Capabilities are `preferred_capabilities`, or else the keywords of the task
        description. Agents having all of them come first; otherwise any other agent, in
        registration order.
        """
        wanted = (
            preferred_capabilities
            if preferred_capabilities is not None
            else _extract_keywords(request.task_description)
        )
        sender = request.from_agent
        for agent_id in self.registry.find_capable(wanted):
            if agent_id != sender:
                return agent_id
        for agent_id in self.registry.agents:
            if agent_id != sender:
                return agent_id
        return None
