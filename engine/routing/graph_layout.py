"""A layered left-to-right layout of the agent topology: boxes and edge paths with coordinates.

Pure geometry over `engine.routing.graph.Topology`, shared by the SVG, PNG and HTML renderers
(and any other drawing of the same graph). It never draws and never reads a file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from engine.routing.graph import Edge, Topology

CHAR_W = 7.2
"""Estimated width of one character of the 12 px sans-serif label font."""
BOX_H = {"agent": 46.0, "rule": 34.0, "entry": 30.0, "fallback": 30.0}
"""Box height by node kind; a second line of detail makes non-agent boxes 12 px taller."""
GAP_X, GAP_Y, MARGIN = 90.0, 26.0, 24.0
BACK_LANE = 90.0
ARC_ROOM = 70.0
"""Room right of the last column for arcs between agents of the same column."""
"""How far below the lowest box the arrows that go back to an earlier column run."""


@dataclass(frozen=True, slots=True)
class Box:
    """One node: `kind` is agent, rule, entry or fallback; (x, y) its top-left corner."""

    id: str
    label: str
    kind: str
    x: float
    y: float
    width: float
    height: float
    detail: str = ""  # an agent's trigger, shown under its name
    disabled: bool = False

    @property
    def center_y(self) -> float:
        return self.y + self.height / 2


@dataclass(frozen=True, slots=True)
class Link:
    """One edge as a cubic Bezier curve: start, two control points, end."""

    source: str
    target: str
    kind: str  # handoff, rule, entry, fallback
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class Layout:
    width: float
    height: float
    boxes: tuple[Box, ...]
    links: tuple[Link, ...]


def _depths(shape: Topology) -> dict[str, int]:
    """Handoff distance of each agent from the entry agent (unreachable: one past the last)."""
    entry = next(edge.target for edge in shape.edges if edge.kind == "entry")
    depth, queue = {entry: 0}, deque([entry])
    while queue:
        current = queue.popleft()
        for edge in shape.edges:
            if edge.kind == "handoff" and edge.source == current and edge.target not in depth:
                depth[edge.target] = depth[current] + 1
                queue.append(edge.target)
    last = max(depth.values(), default=0) + 1
    return {agent: depth.get(agent, last) for agent in shape.agents}


def _layers(shape: Topology) -> dict[str, int]:
    """Agents on odd columns by depth; rules, the entry and the fallback just before their
    target, so every arrow into an agent comes from the column on its left."""
    column = {agent: 1 + 2 * depth for agent, depth in _depths(shape).items()}
    column["entry"] = 0
    for edge in shape.edges:
        if edge.kind in ("rule", "fallback") and edge.target in shape.agents:
            column[edge.source] = column[edge.target] - 1
    return column


def _order(columns: dict[str, int], edges: Sequence[Edge], sweeps: int = 4) -> list[list[str]]:
    """Nodes of each column, ordered by the mean position of their neighbours (barycenter)."""
    count = max(columns.values()) + 1
    grid: list[list[str]] = [[] for _ in range(count)]
    for node, col in columns.items():
        grid[col].append(node)
    for _ in range(sweeps):
        position = {node: n for nodes in grid for n, node in enumerate(nodes)}
        for nodes in grid:
            nodes.sort(key=lambda node: _barycenter(node, position, edges))
    return grid


def _barycenter(node: str, position: dict[str, int], edges: Sequence[Edge]) -> float:
    near = [position[e.target if e.source == node else e.source] for e in edges
            if node in (e.source, e.target) and e.source != e.target]
    return sum(near) / len(near) if near else position[node]


def _box(node: str, kind: str, label: str, detail: str, x: float, y: float, width: float,
         disabled: bool) -> Box:
    height = BOX_H[kind] + (12 if detail and kind != "agent" else 0)
    return Box(node, label, kind, x, y, width, height, detail, disabled)


def _kind(node: str, shape: Topology) -> str:
    if node in shape.agents:
        return "agent"
    return "rule" if node.startswith("rule") and node not in ("entry", "fallback") else node


def _curve(source: Box, target: Box, floor: float) -> tuple[tuple[float, float], ...]:
    """Forward: right side to left side. Same column: an arc on the right. Backward: down to a
    lane under every box (`floor`) and up into the target, so it crosses no box."""
    if target.x > source.x:
        start, end = (source.x + source.width, source.center_y), (target.x, target.center_y)
        bend = (end[0] - start[0]) / 2
        return (start, (start[0] + bend, start[1]), (end[0] - bend, end[1]), end)
    if target.x == source.x:
        start = (source.x + source.width, source.center_y)
        end = (target.x + target.width, target.center_y)
        reach = 30 + abs(end[1] - start[1]) / 4
        return (start, (start[0] + reach, start[1]), (end[0] + reach, end[1]), end)
    start = (source.x + source.width / 2, source.y + source.height)
    end = (target.x + target.width / 2, target.y + target.height)
    return (start, (start[0], floor), (end[0], floor), end)


def layout(shape: Topology, *, labels: dict[str, str] | None = None,
           details: dict[str, str] | None = None) -> Layout:
    """Place every node of `shape`. `labels` replace node names (rules default to the
    topology's label); `details` add a second, smaller line (an agent's trigger, say)."""
    labels = dict(shape.rules) | {"entry": "entry", "fallback": "fallback"} | (labels or {})
    columns = _layers(shape)
    grid = _order(columns, shape.edges)
    boxes: dict[str, Box] = {}
    x = MARGIN
    extra = {n: 12.0 if (details or {}).get(n) and _kind(n, shape) != "agent" else 0.0
             for nodes in grid for n in nodes}
    heights = [sum(BOX_H[_kind(n, shape)] + extra[n] + GAP_Y for n in nodes) for nodes in grid]
    tallest = max(heights, default=0.0)
    for nodes, height in zip(grid, heights, strict=True):
        kinds = [_kind(node, shape) for node in nodes]
        texts = [labels.get(node, node) for node in nodes]
        notes = [(details or {}).get(node, "") for node in nodes]
        width = max((max(len(t), len(d)) * CHAR_W + 24 for t, d in zip(texts, notes, strict=True)),
                    default=0.0)
        y = MARGIN + (tallest - height) / 2
        for node, kind, text, note in zip(nodes, kinds, texts, notes, strict=True):
            boxes[node] = _box(node, kind, text, note, x, y, width, node in shape.disabled)
            y += boxes[node].height + GAP_Y
        x += width + GAP_X
    floor = MARGIN + tallest + BACK_LANE
    links = tuple(Link(e.source, e.target, e.kind,
                       _curve(boxes[e.source], boxes[e.target], floor)) for e in shape.edges)
    return Layout(x - GAP_X + MARGIN + ARC_ROOM, floor + MARGIN, tuple(boxes.values()), links)

