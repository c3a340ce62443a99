"""Adapter tests run against the real frameworks (see `tests.conftest.framework`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import framework

REQUIRE = "HANDOFF_REQUIRE_ADAPTERS"

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"
ONE_HOP = {
    "engine.yaml": "version: 1\nname: t\nentry: a\npolicies: {max_hops: 1}\n"
                   "include: {agents: ['agents/*.yaml']}\n",
    "agents/a.yaml": "name: a\nhandoff: {trigger: to_a, is_entry_point: true}\npeers: ['*']\n"
                     "metadata: {instructions: You are the front desk.}\n",
    "agents/b.yaml": "name: b\nhandoff: {trigger: to_b}\npeers: ['*']\n"
                     "metadata: {greeting: B here.}\n",
}
"""Two agents that may hand off to each other, and a loop guard that allows one handoff."""
__all__ = ["BANKING", "ONE_HOP", "REQUIRE", "framework"]
