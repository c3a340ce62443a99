"""Handoff tool definitions for LLM function calling: one tool per target an agent may hand off to
(name = trigger, parameters = the target's payload schema), in the shapes model APIs take:
OpenAI Chat Completions, OpenAI Responses, OpenAI Realtime / Azure VoiceLive, Anthropic.
Derived from a Snapshot only; nothing here calls a model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.config.freeze import thaw
from engine.config.models import AgentSpec
from engine.errors import UsageError
from engine.routing.snapshot import Snapshot

DEFAULT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "description": "Why the conversation is handed off."},
        "details": {"type": "string", "description": "What the next agent needs to know."},
    },
}
"""The parameters of a handoff tool whose target declares no `accepts.payload_schema`: two
suggested fields, none required, nothing forbidden, because the engine then checks nothing."""


@dataclass(frozen=True, slots=True)
class HandoffTool:
    """One handoff an agent may make, independent of any model vendor's format."""

    name: str
    target: str
    description: str
    parameters: dict[str, Any]


def _allowed(source: AgentSpec, target: AgentSpec) -> bool:
    return (
        target.name != source.name
        and target.enabled
        and target.handoff.trigger is not None
        and source.may_hand_off_to(target.name)
        and target.accepts_from(source.name)
    )


def handoff_tools(snapshot: Snapshot, agent: str) -> list[HandoffTool]:
    """The handoff tools `agent` may call, in the targets' declaration order."""
    source = snapshot.agents.get(agent)
    if source is None:
        raise UsageError(f"unknown agent {agent!r}; known: {', '.join(snapshot.agents)}")
    tools = []
    for target in snapshot.agents.values():
        if not _allowed(source, target):
            continue
        assert target.handoff.trigger is not None  # checked by _allowed
        description = target.handoff.description or (
            f"Hand the conversation off to {target.name}: {target.description}".rstrip(": ")
        )
        schema = target.accepts.payload_schema
        parameters = thaw(schema if schema is not None else DEFAULT_PARAMETERS)
        parameters.setdefault("type", "object")  # model APIs require it; checked at load
        tools.append(HandoffTool(target.handoff.trigger, target.name, description, parameters))
    return tools


def to_openai(tool: HandoffTool) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": thaw(tool.parameters),
        },
    }


def to_openai_responses(tool: HandoffTool) -> dict[str, Any]:
    """Responses API function tool: flat, with `strict` off (the Responses API defaults it on,
    and strict mode rejects payload schemas with optional properties)."""
    return {**to_openai_realtime(tool), "strict": False}


def to_openai_realtime(tool: HandoffTool) -> dict[str, Any]:
    """Realtime API (and Azure VoiceLive) `session.update` tool: flat `type: function`."""
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": thaw(tool.parameters),
    }


def to_anthropic(tool: HandoffTool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": thaw(tool.parameters),
    }


TOOL_FORMATS: dict[str, Callable[[HandoffTool], dict[str, Any]]] = {
    "openai": to_openai,
    "openai-responses": to_openai_responses,
    "openai-realtime": to_openai_realtime,
    "anthropic": to_anthropic,
}
"""Tool shapes by name (`handoff tools --format`): `openai` is Chat Completions."""
