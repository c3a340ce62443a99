"""A config set as a Pipecat Flows `FlowConfig` (the declarative YAML/JSON flow `pipecat.flows`
loads), where the two models overlap, with a list of what does not carry over. Pure: builds
plain data from a Snapshot; no Pipecat import (the CLI runs without the extra)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.adapters.common import greeting_for, instructions_for
from engine.config.models import AgentSpec
from engine.routing.snapshot import Snapshot
from engine.runtime.session import entry_of
from engine.runtime.tools import handoff_tools


@dataclass
class FlowExport:
    """The FlowConfig as plain data, and one line per config feature it cannot express."""

    config: dict[str, Any]
    dropped: list[str] = field(default_factory=list)


def default_task(spec: AgentSpec) -> list[dict[str, Any]]:
    """The task message of an agent's node when nothing more specific is given."""
    about = f" ({spec.description.rstrip('.')})" if spec.description else ""
    return [{"role": "developer",
             "content": f"Help the caller as {spec.name}{about}. When another agent should "
                        "take over, call its handoff function."}]


def export_flow(snapshot: Snapshot) -> FlowExport:
    """One node per enabled agent, the entry agent first: instructions as `role_message`, the
    greeting as a `tts_say` pre-action, `metadata.tools` as direct functions your code provides,
    each handoff the agent's policy allows as a `transition_only` function to its target, and
    `context.share` as the node's context strategy (`all` appends, `carry`/`none` reset)."""
    export = FlowExport({"initial_node": entry_of(snapshot), "nodes": {}})
    for spec in snapshot.agents.values():
        if not spec.enabled:
            export.dropped.append(f"agent {spec.name}: disabled, so it has no node")
            continue
        own = _own_tools(snapshot, spec)
        export.config["nodes"][spec.name] = _node(snapshot, spec, own)
        export.dropped.extend(_agent_losses(spec, own))
    export.dropped.extend(_set_losses(snapshot))
    return export


def _own_tools(snapshot: Snapshot, spec: AgentSpec) -> list[str]:
    """The agent's `metadata.tools` that are not handoff triggers: your code's functions."""
    listed = spec.metadata.get("tools") or []
    return [name for name in listed if isinstance(name, str) and name not in snapshot.handoff_map]


def _node(snapshot: Snapshot, spec: AgentSpec, own_tools: list[str]) -> dict[str, Any]:
    own = [{"name": name} for name in own_tools]
    handoffs = [{"name": tool.name, "transition_only": True, "description": tool.description,
                 "transition_to": tool.target} for tool in handoff_tools(snapshot, spec.name)]
    node: dict[str, Any] = {
        "role_message": instructions_for(spec),
        "task_messages": default_task(spec),
        "context_strategy": "append" if spec.context.share == "all" else "reset",
    }
    if own or handoffs:
        node["functions"] = own + handoffs
    greeting = greeting_for(spec)
    if greeting:
        node["pre_actions"] = [{"type": "tts_say", "text": greeting}]
    return node


def _agent_losses(spec: AgentSpec, own_tools: list[str]) -> list[str]:
    """What one agent declares that a FlowConfig node cannot hold."""
    where, lost = f"agent {spec.name}", []
    if spec.accepts.payload_schema is not None:
        lost.append(f"{where}: accepts.payload_schema (a transition_only function takes no "
                    "parameters; the payload is neither asked for nor checked)")
    if spec.context.share == "carry":
        lost.append(f"{where}: context.carry {list(spec.context.carry)} (the node resets "
                    "the context; no handoff brief travels)")
    for key in ("voice", "model", "return_greeting"):
        if spec.metadata.get(key):
            lost.append(f"{where}: metadata.{key} (configure it on your Pipecat services)")
    prompt = spec.metadata.get("prompt")
    if isinstance(prompt, str) and " " not in prompt and not spec.metadata.get("instructions"):
        lost.append(f"{where}: metadata.prompt file {prompt!r} (not rendered; the node's "
                    "role_message is built from the name and description)")
    if own_tools:
        lost.append(f"{where}: the code of {', '.join(own_tools)} (give Flow(config, "
                    "handlers=...) direct functions of these names)")
    return lost


def _set_losses(snapshot: Snapshot) -> list[str]:
    """What the set as a whole decides that static FlowConfig transitions cannot."""
    routing, engine = snapshot.config.routing, snapshot.config.engine
    lost = ["routing: keywords, capabilities and examples (a FlowConfig moves only when the "
            "model calls a function; run the engine's router beside the flow to keep them)"]
    rules = [rule.id for rule in routing.rules]
    if rules:
        lost.append(f"routing.rules: {', '.join(rules)} (evaluated by the engine only)")
    policies = engine.policies
    lost.append(f"policies: max_hops {policies.max_hops}, max_bounces {policies.max_bounces}, "
                f"pending_timeout_s {policies.pending_timeout_s} (no loop guard, no handoff "
                "records: transitions are not audited)")
    return lost
