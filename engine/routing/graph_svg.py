"""The agent topology of a Snapshot as an SVG picture, the one `handoff graph` prints and the
console shows. Every text from the config is escaped here; the look is presentation attributes
(no style attribute, no <style> element, no script), so it renders under a strict CSP.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from html import escape

from engine.routing.graph import Edge, topology
from engine.routing.graph_layout import MARGIN, Box, Layout, Link, Node, Point, layout
from engine.routing.snapshot import Snapshot

MAX_DRAWN_AGENTS = 150
"""Larger sets are listed, not drawn: a picture of hundreds of agents helps no one."""
FONT = "system-ui, -apple-system, Segoe UI, Roboto, DejaVu Sans, sans-serif"
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, DejaVu Sans Mono, monospace"
INK, MUTED, BACKDROP = "#1d2533", "#677189", "#fbfcfe"
BOX = {
    "agent": ("#ffffff", "#4d6aa8", 1.2),
    "entry agent": ("#e8eefc", "#2f5bd3", 2.4),
    "disabled": ("#f4f5f7", "#4d6aa8", 1.2),
    "rule": ("#f5f0fd", "#7b4fc9", 1.2),
    "entry": ("#2f5bd3", "#2f5bd3", 1.2),
    "fallback": ("#fbf6ec", "#8a6d3b", 1.2),
}
"""A box's look -> (fill, stroke, stroke width)."""
LINE = {
    "handoff": ("#7d8aa5", "", 1.4),
    "rule": ("#7b4fc9", "2 3", 1.4),
    "entry": ("#2f5bd3", "", 2.4),
    "fallback": ("#8a6d3b", "6 4", 1.4),
}
"""An edge kind -> (colour, dash pattern, width)."""
LEGEND = (("handoff", "handoff policy allows (both ways: two heads)"), ("rule", "routing rule"),
          ("entry", "entry"), ("fallback", "fallback"))
LEGEND_H, LEGEND_CHAR_W, SAMPLE_W = 30.0, 6.8, 26.0


def look(node: Node) -> tuple[str, str, float]:
    """(fill, stroke, stroke width) of a node's box."""
    if node.kind == "agent" and node.disabled:
        return BOX["disabled"]
    return BOX["entry agent" if node.entry else node.kind]


def snapshot_layout(snapshot: Snapshot) -> Layout:
    """The layout of a snapshot's topology. Agents and the ways in have keys of their own (an
    agent may be called `entry`); a rule's `from` agents are written on it, not drawn."""
    entry = snapshot.config.engine.entry
    nodes = [Node("way:entry", "entry", "entry")]
    for n, rule in enumerate(snapshot.rules):
        sources = ", ".join(rule.when.from_agents)
        detail = f"priority {rule.priority}" + (f" · from {sources}" if sources else "")
        nodes.append(Node(f"rule{n}", "rule", rule.id, detail, rule.description or ""))
    if snapshot.config.routing.fallback is not None:
        nodes.append(Node("way:fallback", "fallback", "fallback"))
    for name, agent in snapshot.agents.items():
        nodes.append(Node(f"agent:{name}", "agent", name,
                          agent.handoff.trigger or "no handoff trigger", agent.description or "",
                          disabled=not agent.enabled, entry=name == entry))
    ways = {"entry": "way:entry", "fallback": "way:fallback"}
    edges = [Edge(f"agent:{e.source}" if e.kind == "handoff" else ways.get(e.source, e.source),
                  f"agent:{e.target}", e.label, e.kind)
             for e in topology(snapshot).edges if not (e.kind == "rule" and e.label == "from")]
    return layout(nodes, edges, entry=f"agent:{entry}")


@dataclass(frozen=True, slots=True)
class Key:
    """One legend entry: a line sample of an edge kind at (x, y), its text after it."""

    kind: str
    text: str
    x: float
    y: float


def frame(drawn: Layout) -> tuple[float, float, tuple[Key, ...]]:
    """The picture's width and height, and the legend row under the graph."""
    keys, x, y = [], MARGIN, drawn.height + LEGEND_H / 2 - MARGIN / 2
    for kind, text in LEGEND:
        keys.append(Key(kind, text, x, y))
        x += SAMPLE_W + 6 + len(text) * LEGEND_CHAR_W + 20
    return max(drawn.width, x + MARGIN), drawn.height + LEGEND_H - MARGIN / 2, tuple(keys)


def _path(points: tuple[Point, ...]) -> str:
    """SVG path data: move to the start, then one cubic curve per three points."""
    parts = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for n in range(1, len(points), 3):
        parts.append("C" + " ".join(f"{x:.1f},{y:.1f}" for x, y in points[n:n + 3]))
    return " ".join(parts)


def _stroke(kind: str) -> str:
    colour, dash, width = LINE[kind]
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return f'fill="none" stroke="{colour}" stroke-width="{width}"{dashed}'


def _link(link: Link, names: dict[str, str]) -> str:
    edge = link.edge
    source, target = names[edge.source], names[edge.target]
    if edge.kind == "handoff":
        title = f"{source} {'<->' if link.both else '->'} {target}"
    else:
        title = f"{'rule ' if edge.kind == 'rule' else ''}{source} -> {target}"
    start = f' marker-start="url(#arrow-{edge.kind})"' if link.both else ""
    return (f'<path class="edge edge-{edge.kind}" d="{_path(link.points)}" {_stroke(edge.kind)}'
            f'{start} marker-end="url(#arrow-{edge.kind})"><title>{escape(title)}</title></path>')


def _node(box: Box) -> str:
    node = box.node
    fill, stroke, width = look(node)
    classes = f"node node-{node.kind}" + (" node-entry-agent" if node.entry else "") \
        + (" node-disabled" if node.disabled else "")
    dash = ' stroke-dasharray="5 4"' if node.disabled else ""
    radius = box.height / 2 if node.kind in ("entry", "fallback") else 6
    centre = box.x + box.width / 2
    colour = "#ffffff" if node.kind == "entry" else INK
    top = box.middle - 3 if node.detail else box.middle + 4.5
    parts = [
        f'<g class="{classes}" data-{node.kind}="{escape(node.label)}">',
        f"<title>{escape(node.note)}</title>" if node.note else "",
        f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
        f'height="{box.height:.1f}" rx="{radius:.1f}" fill="{fill}" stroke="{stroke}" '
        f'stroke-width="{width}"{dash}/>',
        f'<text class="label" x="{centre:.1f}" y="{top:.1f}" font-weight="600" '
        f'fill="{colour}">{escape(node.title)}</text>',
    ]
    if node.detail:
        parts.append(f'<text class="detail" x="{centre:.1f}" y="{box.middle + 12:.1f}" '
                     f'font-family="{MONO}" font-size="11" fill="{MUTED}">'
                     f"{escape(node.detail)}</text>")
    return "".join(parts) + "</g>"


def _legend(keys: tuple[Key, ...]) -> Iterator[str]:
    yield '<g class="legend" text-anchor="start" font-size="12">'
    for key in keys:
        yield (f'<path d="M{key.x:.1f},{key.y:.1f} h{SAMPLE_W:.0f}" {_stroke(key.kind)}/>'
               f'<text x="{key.x + SAMPLE_W + 6:.1f}" y="{key.y + 4:.1f}" fill="{MUTED}">'
               f"{escape(key.text)}</text>")
    yield "</g>"


def _markers() -> str:
    return "".join(
        f'<marker id="arrow-{kind}" class="arrow arrow-{kind}" viewBox="0 0 10 10" refX="9" '
        f'refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" '
        f'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        for kind, (colour, _, _) in LINE.items())


def render_svg(drawn: Layout, *, title: str) -> str:
    """An `<svg>` element of a layout: edges under boxes, a legend row below; an element a line."""
    width, height, keys = frame(drawn)
    names = {box.node.key: box.node.label for box in drawn.boxes}
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" class="topology" role="img" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f'font-family="{FONT}" font-size="13" text-anchor="middle">',
        f"<title>{escape(title)}</title><defs>{_markers()}</defs>",
        f'<rect class="backdrop" width="100%" height="100%" fill="{BACKDROP}"/>',
        '<g class="edges">', *(_link(link, names) for link in drawn.links), "</g>",
        '<g class="nodes">', *(_node(box) for box in drawn.boxes), "</g>",
        *_legend(keys), "</svg>",
    ]) + "\n"


def svg(snapshot: Snapshot) -> str:
    """The snapshot's topology as an SVG document, however many agents it has."""
    name = snapshot.config.engine.name
    return render_svg(snapshot_layout(snapshot), title=f"Topology of {name}")


def picture(snapshot: Snapshot) -> str | None:
    """`svg(snapshot)`, or None for a set of more than MAX_DRAWN_AGENTS (list those instead)."""
    return None if len(snapshot.agents) > MAX_DRAWN_AGENTS else svg(snapshot)


PAGE_STYLE = (f"body{{font:14px/1.5 {FONT};color:{INK};margin:24px}} h1{{font-size:18px}} "
              f"small{{color:{MUTED};font-weight:normal}} table{{border-collapse:collapse}} "
              "th,td{text-align:left;padding:4px 10px;border-bottom:1px solid #dde2ea}")


def _agent_table(snapshot: Snapshot) -> str:
    rows = "".join(
        f"<tr><td>{escape(name)}{'' if agent.enabled else ' (disabled)'}</td>"
        f"<td>{escape(agent.handoff.trigger or '-')}</td>"
        f"<td>{escape(', '.join(agent.peers) or 'no one')}</td>"
        f"<td>{escape(agent.description or '')}</td></tr>\n"
        for name, agent in snapshot.agents.items())
    return (f"<p>{len(snapshot.agents)} agents: more than {MAX_DRAWN_AGENTS} are listed, not "
            f"drawn.</p>\n<table><thead><tr><th>agent</th><th>trigger</th><th>peers</th>"
            f"<th>description</th></tr></thead><tbody>\n{rows}</tbody></table>\n")


def html(snapshot: Snapshot) -> str:
    """A standalone page: the picture inline, or a table of the agents of a set too large to
    draw. Opens offline: nothing fetched, no script."""
    name = escape(snapshot.config.engine.name)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{name}: agent topology</title>\n<style>{PAGE_STYLE}</style></head>\n"
            f"<body>\n<h1>{name} <small>config {escape(snapshot.version)}</small></h1>\n"
            f"{picture(snapshot) or _agent_table(snapshot)}</body></html>\n")
