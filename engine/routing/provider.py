"""Seed 002's `HandoffProvider` protocol: live lookups of handoff tool -> target agent.

Only the protocol lives here; `engine.config.Snapshot` implements it, and so may a runtime's
per-session map. Orchestrators depend on this protocol, never on a concrete map.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable


@runtime_checkable
class HandoffProvider(Protocol):
    """Answers "which agent does this handoff tool hand off to?" (seed 002)."""

    def get_handoff_target(self, tool_name: str) -> str | None:
        """The agent `tool_name` hands off to, or None when it is not a handoff tool."""
        ...

    @property
    def handoff_map(self) -> Mapping[str, str]:
        """Every handoff tool name -> agent name."""
        ...

    def is_handoff_tool(self, tool_name: str) -> bool:
        """Whether `tool_name` is a handoff tool of this provider."""
        ...
