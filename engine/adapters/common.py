"""What every adapter reads from an agent's spec (instructions, greeting, voice) and the handoff
brief a new agent is told, so the framework modules only translate. Pure; no framework imports."""

from __future__ import annotations

import json
from collections.abc import Container, Mapping
from typing import Any, TypeVar

from engine.config.models import AgentSpec
from engine.errors import UsageError

T = TypeVar("T")


def instructions_for(agent: AgentSpec) -> str:
    """The agent's inline `prompt_template`, else `metadata.instructions`, else `metadata.prompt`
    when it is inline text rather than a file name (prompt files are the runtime's to render:
    pass your own instructions callable), else a line built from its name and description."""
    if agent.prompt_template.strip():
        return agent.prompt_template.strip()
    for key in ("instructions", "prompt"):
        text = agent.metadata.get(key)
        if isinstance(text, str) and text.strip() and (key == "instructions" or " " in text):
            return text.strip()
    about = f": {agent.description}" if agent.description else "."
    return f"You are {agent.name}{about}"


def tools_for(
    agent: AgentSpec, toolbox: Mapping[str, T] | None, triggers: Container[str]
) -> list[T]:
    """The runtime's own tools that the agent's `tools` (else `metadata.tools`) names, from
    `toolbox` (tools by name). Handoff triggers listed there are skipped: handoff tools come
    from policy. Without a toolbox an agent gets none; with one, a name it lacks is a
    UsageError listing them all."""
    if toolbox is None:
        return []
    where = "tools" if agent.tool_names else "metadata.tools"
    listed = agent.tool_names or agent.metadata.get("tools") or []
    names = [name for name in listed if isinstance(name, str) and name not in triggers]
    lacking = [name for name in names if name not in toolbox]
    if lacking:
        raise UsageError(
            f"agent {agent.name!r}: {where} names {', '.join(map(repr, lacking))}, "
            f"which the toolbox lacks; it has: {', '.join(sorted(toolbox)) or 'nothing'}"
        )
    return [toolbox[name] for name in names]


def greeting_for(agent: AgentSpec, *, returning: bool = False) -> str | None:
    """The agent's `greeting` (`return_greeting` when the caller comes back to it), each read
    from `metadata` when the typed field is empty."""
    keys = ("return_greeting", "greeting") if returning else ("greeting",)
    for key in keys:
        text = getattr(agent, key) or agent.metadata.get(key)
        if isinstance(text, str) and text.strip():
            return text.strip()
    return None


def voice_for(agent: AgentSpec) -> str | None:
    """The voice name from the agent's `voice` when it declares one, else from `metadata.voice`
    (`{name: ...}` or a plain string)."""
    if "voice" in agent.model_fields_set:
        return agent.voice.name
    voice = agent.metadata.get("voice")
    if isinstance(voice, Mapping):
        voice = voice.get("name")
    return voice if isinstance(voice, str) and voice else None


def model_for(agent: AgentSpec) -> str | None:
    """The model deployment the agent's `model` names, else `metadata.model.deployment` (or a
    plain string); None leaves the choice to the framework."""
    declared = agent.model.declared_deployment
    if declared is not None:
        return declared
    configured = agent.metadata.get("model")
    deployment = configured.get("deployment") if isinstance(configured, Mapping) else configured
    return deployment if isinstance(deployment, str) else None


def handoff_brief(system_vars: Mapping[str, Any]) -> str:
    """What the agent taking over is told, from `HandoffOutcome.system_vars` (built by the
    engine with the target's context policy applied): who handed off, why, and the context
    that may travel. Empty when there was no handoff."""
    previous = system_vars.get("previous_agent")
    if not previous:
        return ""
    lines = [f"You took over this conversation from {previous}.",
             f"Reason: {system_vars.get('handoff_reason') or 'unspecified'}."]
    details = system_vars.get("details")
    if details:
        lines.append(f"Details: {details}")
    context = system_vars.get("handoff_context")
    if context:
        lines.append(f"Context: {json.dumps(context, sort_keys=True, default=str)}")
    return "\n".join(lines)


def with_brief(instructions: str, system_vars: Mapping[str, Any], agent: str) -> str:
    """`instructions`, followed by the brief when `agent` is the one the last handoff reached."""
    if system_vars.get("active_agent") != agent:
        return instructions
    brief = handoff_brief(system_vars)
    return f"{instructions}\n\n{brief}" if brief else instructions


def refusal_message(reason: str) -> str:
    """The tool result a model sees when the engine refused its handoff."""
    return f"Handoff refused ({reason}). Carry on without this handoff."


def not_in_team(target: str, version: str) -> UsageError:
    """A handoff routed to an agent the adapter's agents were not built with (a reload added
    or enabled it since): the runtime must rebuild them on the serving config."""
    return UsageError(
        f"handoff routed to {target!r}, which is not among the agents built from this config "
        f"set; rebuild them after a reload (serving config {version})"
    )


def missing(framework: str, extra: str) -> ImportError:
    """The error an adapter raises when its framework is not installed."""
    return ImportError(
        f"{framework} is not installed; install the extra: pip install 'handoff-engine[{extra}]'"
    )
