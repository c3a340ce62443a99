"""Generator of large, valid config sets for the check benchmark (no I/O beyond writing them).

`write_config_set(folder, agents=1000)` writes engine.yaml, one file per agent, a capabilities
document and a routing document; every agent is reachable, no rule is shadowed, and every
payload schema is distinct (no cache makes the run cheaper than a real set of that size).
"""

from __future__ import annotations

from pathlib import Path

SCHEMA_LINE = "# yaml-language-server: $schema=../../schemas/{}.schema.json\n"


def _agent(index: int, total: int) -> str:
    peers = sorted(
        {f"agent_{(index + step) % total:04d}" for step in (1, 2, 3)} - {f"agent_{index:04d}"}
    )
    capability = f"cap_{index % 100:03d}"
    return (
        f"name: agent_{index:04d}\n"
        f"description: Generated agent number {index} handling {capability} work.\n"
        f"capabilities: [{capability}]\n"
        f"handoff:\n  trigger: handoff_agent_{index:04d}\n"
        + ("  is_entry_point: true\n" if index == 0 else "")
        + f"peers: [{', '.join(peers)}]\n"
        "accepts:\n  from: ['*']\n"
        "  payload_schema:\n    type: object\n    properties:\n"
        f"      reason: {{type: string, maxLength: {100 + index}}}\n"
        "      amount: {type: number, minimum: 0}\n"
        "context:\n  share: carry\n  carry: [customer_id, session_id]\n"
        "metadata:\n"
        f"  voice: {{name: en-US-Voice{index % 7}, rate: '+{index % 10}%'}}\n"
        f"  model: {{deployment: gpt-4o, temperature: 0.{index % 10}}}\n"
        f"  greeting: Hello, this is agent {index}. How can I help you today?\n"
        f"  prompt: prompts/agent_{index:04d}.jinja\n"
        "  tools: [lookup_account, open_case, send_summary, escalate]\n"
    )


def _capabilities(count: int) -> str:
    lines = ["capabilities:\n"]
    for index in range(count):
        lines.append(
            f"  cap_{index:03d}:\n"
            f"    description: Generated capability {index}.\n"
            f"    keywords: [word{index}a, word{index}b, phrase {index} c]\n"
            f"    synonyms: [syn{index}]\n"
        )
    return "".join(lines)


def _routing(total: int) -> str:
    lines = ["rules:\n"]
    for index in range(0, total, 10):
        lines.append(
            f"  - id: rule-{index:04d}\n"
            f"    priority: {index % 100}\n"
            f"    when:\n      keywords:\n        any: [word{index % 100}a, extra{index}]\n"
            f"    to: agent_{index:04d}\n"
        )
    lines.append("fallback: agent_0000\n")
    return "".join(lines)


def write_config_set(folder: Path, *, agents: int = 1000) -> Path:
    """Write a generated set below `folder`; returns the folder."""
    (folder / "agents").mkdir(parents=True, exist_ok=True)
    (folder / "engine.yaml").write_text(
        SCHEMA_LINE.format("engine") + "version: 1\nname: generated\nentry: agent_0000\n"
        "include:\n  agents: ['agents/*.yaml']\n  capabilities: ['capabilities.yaml']\n"
        "  routing: ['routing.yaml']\n",
        encoding="utf-8",
    )
    for index in range(agents):
        path = folder / "agents" / f"agent_{index:04d}.yaml"
        path.write_text(_agent(index, agents), encoding="utf-8")
    (folder / "capabilities.yaml").write_text(_capabilities(100), encoding="utf-8")
    (folder / "routing.yaml").write_text(_routing(agents), encoding="utf-8")
    return folder
