"""Topology diagrams: allowed handoffs labelled with triggers, rules, entry and fallback."""

from __future__ import annotations

from collections.abc import Callable

from engine.routing.graph import dot, mermaid, topology
from engine.routing.snapshot import Snapshot

Build = Callable[..., Snapshot]


def _snapshot(build: Build) -> Snapshot:
    agents = [
        {"name": "hub", "peers": ["desk.a", "desk-b"]},
        {"name": "desk.a", "handoff": {"trigger": "to_a"}, "peers": ["hub"]},
        {"name": "desk-b", "handoff": {"trigger": "to_b"}, "enabled": False,
         "accepts": {"from": ["desk.a"]}},
    ]
    rules = [{"id": "r1", "to": "desk.a", "priority": 3, "when": {"from": ["hub"]}}]
    return build(agents, rules=rules, fallback="hub")


def test_edges_follow_both_sides_of_policy(build: Build) -> None:
    edges = {(e.source, e.target, e.label, e.kind) for e in topology(_snapshot(build)).edges}
    assert ("hub", "desk.a", "to_a", "handoff") in edges
    assert ("desk.a", "hub", "", "handoff") in edges
    assert not any(e[:2] == ("hub", "desk-b") for e in edges)  # desk-b accepts only desk.a
    assert ("entry", "hub", "entry", "entry") in edges
    assert ("fallback", "hub", "fallback", "fallback") in edges
    assert ("hub", "rule0", "from", "rule") in edges


def test_mermaid_uses_safe_ids_and_marks_disabled_agents(build: Build) -> None:
    text = mermaid(_snapshot(build))
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    assert '  n2["desk.a"]' in lines
    assert '  n3["desk-b (disabled)"]' in lines
    assert '  n4{"rule r1 (priority 3)"}' in lines
    assert '  n1 -->|"to_a"| n2' in lines
    assert "  n0 ==> n1" in lines
    assert "  style n3 stroke-dasharray: 5 5" in lines


def test_dot_is_a_digraph_of_the_same_topology(build: Build) -> None:
    text = dot(_snapshot(build))
    assert text.startswith('digraph "test" {\n  rankdir=LR;')
    assert '  "desk-b" [shape=box, style=dashed];' in text
    assert '  "hub" -> "desk.a" [style=solid, label="to_a"];' in text
    assert '  "rule0" -> "desk.a" [style=dotted];' in text
    assert text.endswith("}")
