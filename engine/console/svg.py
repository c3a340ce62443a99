"""The agent topology of a Snapshot drawn as SVG: agents, the entry, rules and the fallback.

Builds on `engine.routing.graph.topology` and `layout`; every piece of text from the config is
escaped here. Styling is by class (the console's stylesheet), never inline styles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from html import escape

from engine.config.snapshot import Snapshot
from engine.console.layout import Box, Layout, layout
from engine.routing.graph import Edge, Topology, topology

MAX_DRAWN_AGENTS = 150
"""Larger sets are listed, not drawn: a picture of hundreds of agents helps no one."""


def _agent(name: str) -> str:
    return f"agent:{name}"


def _way(key: str) -> str:
    return f"way:{key}"


Rekey = Callable[[str], str]
_ENDS: dict[str, tuple[Rekey, Rekey]] = {
    "handoff": (_agent, _agent), "entry": (_way, _agent), "fallback": (_way, _agent),
    "rule": (_way, _agent),
}


def _rekeyed(shape: Topology) -> Topology:
    """The topology with agents and the ways in (entry, rules, fallback) in separate key
    spaces, so that an agent named `entry` or `rule0` is still its own node."""
    edges = []
    for edge in shape.edges:
        ends = _ENDS[edge.kind]
        if edge.kind == "rule":
            ends = (_agent, _way) if edge.label == "from" else (_way, _agent)
        edges.append(Edge(ends[0](edge.source), ends[1](edge.target), edge.label, edge.kind))
    return Topology(
        tuple(map(_agent, shape.agents)), frozenset(map(_agent, shape.disabled)),
        tuple((_way(node), label) for node, label in shape.rules), tuple(edges),
    )


def _labels(snapshot: Snapshot, shape: Topology) -> dict[str, tuple[str, str]]:
    """Two lines per node (keyed as in `_rekeyed`): a title and a detail line."""
    labels = {_way("entry"): ("entry", ""), _way("fallback"): ("fallback", "")}
    for name, agent in snapshot.agents.items():
        detail = agent.handoff.trigger or "no handoff trigger"
        labels[_agent(name)] = (name if agent.enabled else f"{name} (disabled)", detail)
    for (node, _), rule in zip(shape.rules, snapshot.rules, strict=True):
        sources = rule.when.from_agents
        detail = f"priority {rule.priority}" + (f" · from {', '.join(sources)}" if sources else "")
        labels[node] = (rule.id, detail)
    return labels


def _edge_path(source: Box, target: Box, *, right: float) -> str:
    """A cubic curve from `source` to `target`: forward to the next columns, an arc on the right
    within a column, a curve below for a handoff back to an earlier column."""
    if target.column > source.column:
        x1, y1, x2, y2 = source.x + source.width, source.middle, target.x, target.middle
        bend = (x2 - x1) / 2
        return f"M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} {x2 - bend:.1f},{y2:.1f} " \
               f"{x2:.1f},{y2:.1f}"
    if target.column == source.column:
        x, y1, y2 = right, source.middle, target.middle
        bulge = 26 + abs(y2 - y1) * 0.18
        return f"M{x:.1f},{y1:.1f} C{x + bulge:.1f},{y1:.1f} {x + bulge:.1f},{y2:.1f} " \
               f"{x:.1f},{y2:.1f}"
    x1, y1, x2, y2 = source.x, source.middle, target.x + target.width, target.middle
    return f"M{x1:.1f},{y1:.1f} C{x1 - 50:.1f},{y1 + 70:.1f} {x2 + 50:.1f},{y2 + 70:.1f} " \
           f"{x2:.1f},{y2:.1f}"


def _drawn_edges(shape: Topology, boxes: dict[str, Box]) -> Iterator[tuple[Edge, bool]]:
    """Edges to draw, each with True when it goes both ways (one line, two arrowheads).
    A rule's `from` agents are written on the rule instead of drawn as edges."""
    handoffs = {(e.source, e.target) for e in shape.edges if e.kind == "handoff"}
    for edge in shape.edges:
        if edge.kind == "rule" and edge.label == "from":
            continue
        if edge.kind == "handoff" and (edge.target, edge.source) in handoffs:
            source, target = boxes[edge.source], boxes[edge.target]
            if (source.column, source.y) > (target.column, target.y):
                continue  # drawn from the other end
            yield edge, True
            continue
        yield edge, False


def _node(box: Box, name: str, lines: tuple[str, str], *, entry: bool, disabled: bool,
          description: str) -> str:
    classes = f"node node-{box.kind}" + (" node-entry-agent" if entry else "") \
        + (" node-disabled" if disabled else "")
    title = f"<title>{escape(description)}</title>" if description else ""
    radius = box.height / 2 if box.kind in ("entry", "fallback") else 6
    parts = [
        f'<g class="{classes}" data-{box.kind}="{escape(name)}">{title}',
        f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
        f'height="{box.height:.1f}" rx="{radius:.1f}"/>',
    ]
    centre = box.x + box.width / 2
    if lines[1]:
        parts.append(f'<text class="label" x="{centre:.1f}" y="{box.middle - 3:.1f}">'
                     f"{escape(lines[0])}</text>")
        parts.append(f'<text class="detail" x="{centre:.1f}" y="{box.middle + 12:.1f}">'
                     f"{escape(lines[1])}</text>")
    else:
        parts.append(f'<text class="label" x="{centre:.1f}" y="{box.middle + 4:.1f}">'
                     f"{escape(lines[0])}</text>")
    parts.append("</g>")
    return "".join(parts)


_DEFS = "<defs>" + "".join(
    f'<marker id="arrow-{kind}" class="arrow arrow-{kind}" viewBox="0 0 10 10" refX="9" '
    f'refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
    f'<path d="M0,0 L10,5 L0,10 z"/></marker>'
    for kind in ("handoff", "rule", "entry", "fallback")
) + "</defs>"


def render(snapshot: Snapshot) -> str | None:
    """The topology as an `<svg>` element, or None when the set has too many agents to draw."""
    if len(snapshot.agents) > MAX_DRAWN_AGENTS:
        return None
    shape = _rekeyed(topology(snapshot))
    labels = _labels(snapshot, shape)
    chars = {key: max(len(line) for line in lines) for key, lines in labels.items()}
    placed = layout(shape, entry=_agent(snapshot.config.engine.entry), label_chars=chars)
    return _svg(snapshot, shape, placed, labels)


def _svg(snapshot: Snapshot, shape: Topology, placed: Layout,
         labels: dict[str, tuple[str, str]]) -> str:
    boxes = placed.boxes
    right = {box.column: box.x + box.width for box in boxes.values()}
    body = [_DEFS, '<g class="edges">']
    for edge, both in _drawn_edges(shape, boxes):
        source, target = boxes[edge.source], boxes[edge.target]
        path = _edge_path(source, target, right=right[source.column])
        start = f' marker-start="url(#arrow-{edge.kind})"' if both else ""
        body.append(
            f'<path class="edge edge-{edge.kind}" d="{path}"{start} '
            f'marker-end="url(#arrow-{edge.kind})"><title>{escape(_edge_title(edge, both))}'
            "</title></path>"
        )
    body.append('</g><g class="nodes">')
    entry = _agent(snapshot.config.engine.entry)
    for key, box in boxes.items():
        name = key.partition(":")[2]
        agent = snapshot.agents.get(name) if box.kind == "agent" else None
        description = agent.description if agent is not None else ""
        body.append(_node(box, name, labels[key], entry=key == entry,
                          disabled=key in shape.disabled, description=description or ""))
    body.append("</g>")
    name = escape(snapshot.config.engine.name)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="topology" role="img" '
        f'viewBox="0 0 {placed.width:.0f} {placed.height:.0f}" width="{placed.width:.0f}" '
        f'height="{placed.height:.0f}" data-version="{escape(snapshot.version)}">'
        f"<title>Topology of {name}</title>{''.join(body)}</svg>"
    )


def _edge_title(edge: Edge, both: bool) -> str:
    source, target = edge.source.partition(":")[2], edge.target.partition(":")[2]
    if edge.kind == "handoff":
        return f"{source} {'<->' if both else '->'} {target}"
    return f"{'rule' if edge.kind == 'rule' else edge.kind} -> {target}"
