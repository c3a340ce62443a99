"""Seed 002: build_handoff_map and the HandoffProvider protocol the Snapshot implements."""

from __future__ import annotations

import dataclasses

from engine.config.models import AgentSpec
from engine.routing import HandoffProvider, Router, RouteRequest
from engine.routing.snapshot import Snapshot, build_handoff_map


def _lookup(provider: HandoffProvider, tool: str) -> str | None:
    return provider.get_handoff_target(tool) if provider.is_handoff_tool(tool) else None


def test_snapshot_is_a_handoff_provider(bank: Snapshot) -> None:
    assert isinstance(bank, HandoffProvider)
    assert _lookup(bank, "handoff_fraud") == "fraud"
    assert _lookup(bank, "lookup_balance") is None
    assert dict(bank.handoff_map) == {
        "handoff_fraud": "fraud", "handoff_cards": "cards", "handoff_invest": "invest",
    }


def test_build_handoff_map_skips_agents_without_trigger() -> None:
    agents = {
        "a": AgentSpec(name="a", handoff={"trigger": "handoff_a"}),  # type: ignore[arg-type]
        "b": AgentSpec(name="b"),
    }
    assert build_handoff_map(agents) == {"handoff_a": "a"}


def test_a_plain_dict_is_not_a_provider() -> None:
    assert not isinstance({"handoff_a": "a"}, HandoffProvider)


def test_a_snapshot_built_without_tables_still_routes(bank: Snapshot) -> None:
    bare = dataclasses.replace(bank, tables=None)
    decision = Router(bare).route(RouteRequest("concierge", "x", tool="handoff_cards"))
    assert decision == Router(bank).route(RouteRequest("concierge", "x", tool="handoff_cards"))
