"""The agent topology of a Snapshot as a Mermaid or Graphviz DOT diagram.

Edges are the handoffs policy allows (sender's peers and receiver's accepts), labelled with the
receiver's trigger; rules, the entry and the fallback are drawn too. Pure text generation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engine.routing.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    label: str
    kind: str  # "handoff", "rule", "entry", "fallback"


@dataclass(frozen=True, slots=True)
class Topology:
    """Nodes (agents, in declaration order, and rule nodes) and the edges between them."""

    agents: tuple[str, ...]
    disabled: frozenset[str]
    rules: tuple[tuple[str, str], ...]  # (rule node id, label)
    edges: tuple[Edge, ...]


def topology(snapshot: Snapshot) -> Topology:
    agents = snapshot.agents
    edges: list[Edge] = [Edge("entry", snapshot.config.engine.entry, "entry", "entry")]
    for sender in agents.values():
        for receiver in agents.values():
            if receiver.name == sender.name:
                continue
            if sender.may_hand_off_to(receiver.name) and receiver.accepts_from(sender.name):
                edges.append(Edge(sender.name, receiver.name, receiver.handoff.trigger or "",
                                  "handoff"))
    rules: list[tuple[str, str]] = []
    for n, rule in enumerate(snapshot.rules):
        node = f"rule{n}"
        rules.append((node, f"rule {rule.id} (priority {rule.priority})"))
        edges.extend(Edge(source, node, "from", "rule") for source in rule.when.from_agents)
        edges.append(Edge(node, rule.to, "", "rule"))
    fallback = snapshot.config.routing.fallback
    if fallback is not None:
        edges.append(Edge("fallback", fallback, "fallback", "fallback"))
    disabled = frozenset(name for name, agent in agents.items() if not agent.enabled)
    return Topology(tuple(agents), disabled, tuple(rules), tuple(edges))


def _mermaid_id(name: str, ids: dict[str, str]) -> str:
    return ids.setdefault(name, f"n{len(ids)}")


def _quote(label: str) -> str:
    return label.replace('"', "#quot;")


def mermaid(snapshot: Snapshot) -> str:
    """A `flowchart LR` diagram; paste it into a ```mermaid block of a pull request."""
    shape = topology(snapshot)
    ids: dict[str, str] = {}
    lines = ["flowchart LR"]
    lines.append(f'  {_mermaid_id("entry", ids)}(("entry"))')
    for name in shape.agents:
        suffix = " (disabled)" if name in shape.disabled else ""
        lines.append(f'  {_mermaid_id(name, ids)}["{_quote(name + suffix)}"]')
    for node, label in shape.rules:
        lines.append(f'  {_mermaid_id(node, ids)}{{"{_quote(label)}"}}')
    if any(edge.kind == "fallback" for edge in shape.edges):
        lines.append(f'  {_mermaid_id("fallback", ids)}(["fallback"])')
    arrows = {"handoff": "-->", "rule": "-.->", "entry": "==>", "fallback": "-.->"}
    for edge in shape.edges:
        if edge.kind == "entry" or edge.kind == "fallback":
            text = ""
        else:
            text = f'|"{_quote(edge.label)}"|' if edge.label else ""
        source, target = _mermaid_id(edge.source, ids), _mermaid_id(edge.target, ids)
        lines.append(f"  {source} {arrows[edge.kind]}{text} {target}")
    for name in sorted(shape.disabled):
        lines.append(f"  style {_mermaid_id(name, ids)} stroke-dasharray: 5 5")
    return "\n".join(lines)


def _dot_lines(shape: Topology) -> Iterator[str]:
    yield '  "entry" [shape=circle];'
    for name in shape.agents:
        style = ", style=dashed" if name in shape.disabled else ""
        yield f'  "{name}" [shape=box{style}];'
    for node, label in shape.rules:
        yield f'  "{node}" [shape=diamond, label="{label}"];'
    styles = {"handoff": "solid", "rule": "dotted", "entry": "bold", "fallback": "dashed"}
    for edge in shape.edges:
        if edge.kind == "fallback":
            yield '  "fallback" [shape=oval];'
        label = f', label="{edge.label}"' if edge.label and edge.kind != "entry" else ""
        yield f'  "{edge.source}" -> "{edge.target}" [style={styles[edge.kind]}{label}];'


def dot(snapshot: Snapshot) -> str:
    """A Graphviz `digraph` of the same topology."""
    name = snapshot.config.engine.name.replace('"', "'")
    body = list(_dot_lines(topology(snapshot)))
    return "\n".join([f'digraph "{name}" {{', "  rankdir=LR;", *body, "}"])


RENDERER_BY_NAME: dict[str, Callable[[Snapshot], str]] = {"mermaid": mermaid, "dot": dot}
