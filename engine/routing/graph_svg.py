"""The agent topology as a standalone SVG picture (and an HTML page around it).

`render_svg(layout)` turns a `graph_layout.Layout` into SVG text; `svg(snapshot)` and
`html(snapshot)` go from a Snapshot. Pure text generation: no fonts, files or network needed.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape

from engine.config.snapshot import Snapshot
from engine.routing.graph import topology
from engine.routing.graph_layout import Box, Layout, Link, layout

STYLE = {
    "agent": ("#eef4ff", "#3b6fd8"),
    "rule": ("#fff7e6", "#c98a00"),
    "entry": ("#e8f7ee", "#2e8b57"),
    "fallback": ("#f3f3f3", "#777777"),
}
"""Node kind -> (fill, stroke)."""
EDGE = {
    "handoff": ("#3b6fd8", ""),
    "rule": ("#c98a00", "4 3"),
    "entry": ("#2e8b57", ""),
    "fallback": ("#777777", "6 4"),
}
"""Edge kind -> (colour, dash pattern)."""
FONT = "font-family:Helvetica,Arial,sans-serif;font-size:12px"


def snapshot_layout(snapshot: Snapshot) -> Layout:
    """The layout of a snapshot's topology for a picture: agent boxes show their trigger, rule
    boxes their id, priority and `from` agents (drawn as text rather than as arrows)."""
    shape = topology(snapshot)
    details = {name: agent.handoff.trigger or "" for name, agent in snapshot.agents.items()}
    labels = {}
    for n, rule in enumerate(snapshot.rules):
        labels[f"rule{n}"] = f"rule {rule.id}"
        senders = f", from {', '.join(rule.when.from_agents)}" if rule.when.from_agents else ""
        details[f"rule{n}"] = f"priority {rule.priority}{senders}"
    arrows = tuple(edge for edge in shape.edges if not (edge.kind == "rule"
                                                        and edge.label == "from"))
    return layout(replace(shape, edges=arrows), labels=labels, details=details)


def _shape(box: Box) -> str:
    fill, stroke = STYLE[box.kind]
    dash = ' stroke-dasharray="5 4"' if box.disabled else ""
    common = f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"{dash}'
    if box.kind == "rule":
        return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
                f'height="{box.height:.1f}" rx="2" {common}/>')
    radius = box.height / 2 if box.kind in ("entry", "fallback") else 6
    return (f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
            f'height="{box.height:.1f}" rx="{radius:.1f}" {common}/>')


def _label(box: Box) -> str:
    middle = box.x + box.width / 2
    lower = box.y + box.height - 11
    suffix = " (disabled)" if box.disabled else ""
    if not box.detail:
        return (f'<text x="{middle:.1f}" y="{box.center_y + 4:.1f}" text-anchor="middle">'
                f"{escape(box.label + suffix)}</text>")
    return (f'<text x="{middle:.1f}" y="{box.y + 19:.1f}" text-anchor="middle" '
            f'font-weight="bold">{escape(box.label + suffix)}</text>'
            f'<text x="{middle:.1f}" y="{lower:.1f}" text-anchor="middle" '
            f'fill="#555" font-size="10px">{escape(box.detail)}</text>')


def _path(link: Link) -> str:
    colour, dash = EDGE[link.kind]
    start, first, second, end = link.points
    d = (f"M{start[0]:.1f},{start[1]:.1f} C{first[0]:.1f},{first[1]:.1f} "
         f"{second[0]:.1f},{second[1]:.1f} {end[0]:.1f},{end[1]:.1f}")
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    width = "2.5" if link.kind == "entry" else "1.3"
    return (f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{width}"{dashed} '
            f'marker-end="url(#arrow-{link.kind})"><title>{escape(link.source)} -&gt; '
            f"{escape(link.target)} ({link.kind})</title></path>")


def _markers() -> str:
    return "".join(
        f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" '
        f'markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" '
        f'fill="{colour}"/></marker>'
        for kind, (colour, _dash) in EDGE.items())


def render_svg(drawn: Layout, *, title: str = "") -> str:
    """SVG text for a layout: boxes, curved arrows (handoffs solid, rules and the fallback
    dashed, the entry bold), a <title> for screen readers and tooltips."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{drawn.width:.0f}" '
        f'height="{drawn.height:.0f}" viewBox="0 0 {drawn.width:.0f} {drawn.height:.0f}" '
        f'style="{FONT}" role="img">',
        f"<title>{escape(title or 'agent topology')}</title>",
        f"<defs>{_markers()}</defs>",
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        *(_path(link) for link in drawn.links),
        *(f"<g>{_shape(box)}{_label(box)}</g>" for box in drawn.boxes),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def svg(snapshot: Snapshot) -> str:
    """The snapshot's topology as an SVG document."""
    return render_svg(snapshot_layout(snapshot), title=snapshot.config.engine.name)


LEGEND = ("solid: handoffs policy allows (each agent box shows its trigger); dashed orange: "
          "rules, to their target (a rule box names the agents it applies to); dashed grey: "
          "the fallback; bold green: the entry agent")


def html(snapshot: Snapshot) -> str:
    """A standalone HTML page with the picture inline (opens offline, no scripts)."""
    name = escape(snapshot.config.engine.name)
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{name}: agent topology</title></head>\n"
            f'<body style="{FONT};margin:24px">\n<h1 style="font-size:18px">{name} '
            f'<small style="color:#777">config {snapshot.version}</small></h1>\n'
            f"{svg(snapshot)}<p>{LEGEND}</p>\n</body></html>\n")
