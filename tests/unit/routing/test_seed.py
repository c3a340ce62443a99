"""Seed 000 parity: AgentCapabilityRegistry and HandoffRouter, never routing to the sender."""

from __future__ import annotations

from engine.records.models import HandoffRequest
from engine.routing import AgentCapabilityRegistry, HandoffRouter


def _registry() -> AgentCapabilityRegistry:
    registry = AgentCapabilityRegistry()
    registry.register("alice", ["analyze", "summarize", "translate"])
    registry.register("bob", ["execute", "report"])
    registry.register("carol", ["analyze", "visualize"])
    return registry


def test_find_capable_uses_subset_semantics_in_registration_order() -> None:
    registry = _registry()
    assert registry.find_capable(["analyze"]) == ["alice", "carol"]
    assert registry.find_capable(["analyze", "summarize"]) == ["alice"]
    assert registry.find_capable(["fly"]) == []


def test_register_replaces_and_unregister_is_silent() -> None:
    registry = _registry()
    registry.register("bob", ["analyze"])
    assert registry.agents["bob"] == ["analyze"]
    registry.unregister("bob")
    registry.unregister("nobody")
    assert list(registry.agents) == ["alice", "carol"]


def test_registry_is_a_pydantic_model_with_the_seed_field() -> None:
    registry = _registry()
    assert registry.model_dump()["agents"]["carol"] == ["analyze", "visualize"]


def _request(sender: str, text: str) -> HandoffRequest:
    return HandoffRequest(from_agent=sender, to_agent="", task_description=text)


def test_route_matches_the_seed_examples() -> None:
    registry = AgentCapabilityRegistry()
    registry.register("analyst", ["analyze", "report"])
    registry.register("writer", ["write", "summarize"])
    router = HandoffRouter(registry)
    request = _request("coordinator", "Please analyze and report on market trends.")
    assert router.route(request) == "analyst"
    assert router.route(request, preferred_capabilities=["summarize"]) == "writer"


def test_route_never_returns_the_sender() -> None:
    registry = AgentCapabilityRegistry()
    registry.register("writer", ["write", "summarize"])
    registry.register("analyst", ["analyze"])
    router = HandoffRouter(registry)
    request = _request("writer", "write")
    assert router.route(request, preferred_capabilities=["summarize"]) == "analyst"


def test_route_returns_none_when_only_the_sender_is_registered() -> None:
    registry = AgentCapabilityRegistry()
    assert HandoffRouter(registry).route(_request("a", "anything")) is None
    registry.register("a", ["anything"])
    assert HandoffRouter(registry).route(_request("a", "anything")) is None
