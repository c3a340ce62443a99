"""Builders for routing tests: config sets declared in code and compiled into snapshots."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from engine.config.models import ConfigSet
from engine.routing.snapshot import Snapshot, compile_snapshot

Build = Callable[..., Snapshot]


def build_snapshot(
    agents: list[dict[str, Any]],
    *,
    capabilities: Mapping[str, Any] | None = None,
    rules: list[dict[str, Any]] | None = None,
    fallback: str | None = None,
    policies: Mapping[str, Any] | None = None,
    engine: Mapping[str, Any] | None = None,
    version: str = "test-1",
) -> Snapshot:
    """Agents as dicts (peers default to anyone), capabilities as name -> keyword list or
    name -> full spec dict, rules as dicts; compiled exactly as the loader compiles."""
    caps: dict[str, Any] = {}
    for name, spec in (capabilities or {}).items():
        caps[name] = {"name": name, **spec} if isinstance(spec, dict) else {
            "name": name, "keywords": list(spec),
        }
    for agent in agents:
        for capability in agent.get("capabilities", ()):
            caps.setdefault(capability, {"name": capability})
    # `when` is always given: the models' default Condition() cannot be deep-copied.
    routing: dict[str, Any] = {"rules": [{"when": {}, **rule} for rule in rules or []]}
    if fallback is not None:
        routing["fallback"] = fallback
    config = ConfigSet.model_validate({
        "engine": {"name": "test", "entry": agents[0]["name"], "policies": policies or {},
                   **(engine or {})},
        "agents": {a["name"]: {"peers": ["*"], **a} for a in agents},
        "capabilities": caps,
        "routing": routing,
    })
    return compile_snapshot(config, version=version, root="/configs/test")


@pytest.fixture(scope="session")
def build() -> Build:
    return build_snapshot


BANK_AGENTS: list[dict[str, Any]] = [
    {"name": "concierge", "capabilities": ["general"]},
    {"name": "fraud", "capabilities": ["fraud", "cards"], "handoff": {"trigger": "handoff_fraud"}},
    {"name": "cards", "capabilities": ["cards"], "handoff": {"trigger": "handoff_cards"}},
    {"name": "invest", "capabilities": ["investing"], "handoff": {"trigger": "handoff_invest"}},
]
BANK_CAPABILITIES: dict[str, Any] = {
    "fraud": {"keywords": ["stolen", "unauthorized charge"], "synonyms": ["scam"]},
    "cards": {"keywords": ["card", "credit card"], "synonyms": ["visa"]},
    "investing": ["stocks", "portfolio"],
    "general": [],
}


@pytest.fixture(scope="session")
def bank_parts() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The agents and capabilities of `bank`, to build variants of it."""
    return BANK_AGENTS, BANK_CAPABILITIES


@pytest.fixture
def bank() -> Snapshot:
    """A small banking set: concierge (fallback) and three specialists with triggers."""
    return build_snapshot(BANK_AGENTS, capabilities=BANK_CAPABILITIES, fallback="concierge")
