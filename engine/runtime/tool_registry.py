"""A registry of the tools agents may call, each flagged handoff or not (art-voice's tool
registry): `register_tool`, `is_handoff_tool`, `list_tools(handoffs_only=True)`.

`ToolRegistry` is an ordinary object; the module-level functions act on one default registry,
as the voice runtime's module did. `register_handoff_tools(snapshot)` adds a config set's handoff
triggers. It answers "is this tool a handoff?"; which agent a handoff goes to is the session's
or the snapshot's `get_handoff_target`. Never runs a tool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.config.freeze import thaw
from engine.routing.snapshot import Snapshot
from engine.runtime.tools import DEFAULT_PARAMETERS


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """One registered tool: its function-calling schema, and whether it hands off."""

    name: str
    schema: dict[str, Any]
    executor: Callable[..., Any] | None = None
    is_handoff: bool = False
    description: str = ""
    tags: frozenset[str] = field(default_factory=frozenset)


class ToolRegistry:
    """Tools by name, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolDefinition] = {}

    def register_tool(
        self,
        name: str,
        schema: dict[str, Any],
        executor: Callable[..., Any] | None = None,
        *,
        is_handoff: bool = False,
        tags: Iterable[str] = (),
        override: bool = False,
    ) -> bool:
        """Register a tool; a name already taken is kept unless `override`. True if stored."""
        if name in self._tools and not override:
            return False
        self._tools[name] = ToolDefinition(name, dict(schema), executor, is_handoff,
                                           str(schema.get("description", "")), frozenset(tags))
        return True

    def register_handoff_tools(self, snapshot: Snapshot, *, override: bool = True) -> int:
        """Register every handoff trigger of `snapshot` as a handoff tool (parameters = the
        target's payload schema); returns how many."""
        for trigger, target in snapshot.handoff_map.items():
            agent = snapshot.agents[target]
            schema = agent.accepts.payload_schema
            self.register_tool(trigger, {
                "name": trigger,
                "description": agent.handoff.description or f"Hand off to {target}.",
                "parameters": thaw(schema) if schema is not None else thaw(DEFAULT_PARAMETERS),
            }, is_handoff=True, tags={"handoff"}, override=override)
        return len(snapshot.handoff_map)

    def is_handoff_tool(self, name: str) -> bool:
        """Whether `name` is registered as a handoff tool (False when unknown)."""
        tool = self._tools.get(name)
        return tool is not None and tool.is_handoff

    def list_tools(self, *, tags: Iterable[str] | None = None,
                   handoffs_only: bool = False) -> list[str]:
        """Registered names, optionally only handoff tools and/or those with every tag."""
        wanted = frozenset(tags or ())
        return [name for name, tool in self._tools.items()
                if (tool.is_handoff or not handoffs_only) and wanted <= tool.tags]

    def get_tool_definition(self, name: str) -> ToolDefinition | None:
        return self._tools.get(name)

    def get_tool_schema(self, name: str) -> dict[str, Any] | None:
        tool = self._tools.get(name)
        return None if tool is None else dict(tool.schema)

    def reset(self) -> None:
        self._tools.clear()


DEFAULT_REGISTRY = ToolRegistry()
"""The registry the module-level functions use."""


def register_tool(name: str, schema: dict[str, Any], executor: Callable[..., Any] | None = None,
                  *, is_handoff: bool = False, tags: Iterable[str] = (),
                  override: bool = False) -> bool:
    return DEFAULT_REGISTRY.register_tool(name, schema, executor, is_handoff=is_handoff,
                                          tags=tags, override=override)


def register_handoff_tools(snapshot: Snapshot) -> int:
    return DEFAULT_REGISTRY.register_handoff_tools(snapshot)


def is_handoff_tool(name: str) -> bool:
    return DEFAULT_REGISTRY.is_handoff_tool(name)


def list_tools(*, tags: Iterable[str] | None = None, handoffs_only: bool = False) -> list[str]:
    return DEFAULT_REGISTRY.list_tools(tags=tags, handoffs_only=handoffs_only)


def get_tool_definition(name: str) -> ToolDefinition | None:
    return DEFAULT_REGISTRY.get_tool_definition(name)


def reset_registry() -> None:
    DEFAULT_REGISTRY.reset()
