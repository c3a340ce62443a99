"""Snapshots built in code for runtime tests (no YAML involved)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config.models import AgentSpec, ConfigSet, EngineSpec
from engine.config.snapshot import Snapshot, compile_snapshot


def snapshot_of(*agents: dict[str, Any], entry: str = "concierge", version: str = "v1") -> Snapshot:
    specs = {spec["name"]: AgentSpec.model_validate(spec) for spec in agents}
    config = ConfigSet(
        engine=EngineSpec(name="test", entry=entry), agents=specs, capabilities={}
    )
    return compile_snapshot(config, version=version, root="<memory>")


@pytest.fixture
def banking() -> Snapshot:
    return snapshot_of(
        {"name": "concierge", "peers": ["*"], "handoff": {"is_entry_point": True}},
        {
            "name": "fraud_agent",
            "description": "Handles fraud.",
            "peers": ["concierge"],
            "handoff": {"trigger": "handoff_fraud_agent"},
            "accepts": {
                "payload_schema": {
                    "type": "object",
                    "properties": {"card_last4": {"type": "string"}},
                    "required": ["card_last4"],
                }
            },
        },
        {
            "name": "claims",
            "description": "Files claims.",
            "handoff": {"trigger": "handoff_claims", "description": "Open a claim."},
            "accepts": {"from": ["fraud_agent"]},
            "terminal": True,
        },
        {"name": "retired", "handoff": {"trigger": "handoff_retired"}, "enabled": False},
    )
