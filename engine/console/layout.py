"""A small layered layout of a `Topology`: columns left to right, positions within a column.

Column 0 holds the ways in (the entry, the rules by evaluation order, the fallback); agents
follow by their handoff distance from the entry agent, unreachable ones last; rows within a
column are ordered by the barycenter of their neighbours. Pure geometry: no drawing here.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from engine.routing.graph import Topology

CHAR_W = 7.4
"""Average advance of one character of the node font, in pixels (13px sans-serif)."""
NODE_H = {"agent": 46.0, "entry": 30.0, "fallback": 30.0, "rule": 40.0}
COLUMN_GAP = 110.0
ROW_GAP = 22.0
MARGIN = 20.0
SWEEPS = 4


@dataclass(frozen=True, slots=True)
class Box:
    """One placed node: `key` as in the topology's edges, its kind, column and rectangle."""

    key: str
    kind: str  # "agent", "entry", "fallback", "rule"
    column: int
    x: float
    y: float
    width: float
    height: float

    @property
    def middle(self) -> float:
        return self.y + self.height / 2


@dataclass(frozen=True, slots=True)
class Layout:
    boxes: dict[str, Box]
    width: float
    height: float


def _columns(topology: Topology, entry: str | None) -> list[list[str]]:
    """Agents by breadth-first handoff distance from `entry`; the unreachable in a last column."""
    adjacent: dict[str, list[str]] = {name: [] for name in topology.agents}
    for edge in topology.edges:
        if edge.kind == "handoff":
            adjacent[edge.source].append(edge.target)
    distance: dict[str, int] = {}
    queue = deque([entry] if entry in adjacent else [])
    if entry in adjacent:
        distance[entry] = 0
    while queue:
        name = queue.popleft()
        for other in adjacent[name]:
            if other not in distance:
                distance[other] = distance[name] + 1
                queue.append(other)
    last = max(distance.values(), default=0) + 1
    columns: list[list[str]] = [[] for _ in range(last + 1)]
    for name in topology.agents:
        columns[distance.get(name, last)].append(name)
    return [column for column in columns if column]


def _ways_in(topology: Topology) -> list[str]:
    keys = [edge.source for edge in topology.edges if edge.kind == "entry"]
    keys += [node for node, _ in topology.rules]
    keys += [edge.source for edge in topology.edges if edge.kind == "fallback"]
    return keys


def _neighbours(topology: Topology) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for edge in topology.edges:
        found.setdefault(edge.source, []).append(edge.target)
        found.setdefault(edge.target, []).append(edge.source)
    return found


def _order(columns: list[list[str]], neighbours: dict[str, list[str]]) -> None:
    """Barycenter sweeps over the agent columns (column 0 keeps its meaningful order)."""
    for _ in range(SWEEPS):
        rank = {key: n for column in columns for n, key in enumerate(column)}
        for column in columns[1:]:
            def centre(key: str, rank: dict[str, int] = rank) -> float:
                near = [rank[k] for k in neighbours.get(key, ()) if k in rank and k != key]
                return sum(near) / len(near) if near else rank[key]

            column.sort(key=centre)
            rank.update({key: n for n, key in enumerate(column)})


def layout(topology: Topology, *, entry: str | None, label_chars: dict[str, int]) -> Layout:
    """Place every node of `topology`. `label_chars` is the longest label line of each node."""
    columns = [_ways_in(topology), *_columns(topology, entry)]
    _order(columns, _neighbours(topology))
    kinds = {node: "rule" for node, _ in topology.rules}
    kinds.update({f"way:{key}": key for key in ("entry", "fallback")})
    boxes: dict[str, Box] = {}
    x, heights = MARGIN, []
    for number, column in enumerate(columns):
        width = max((label_chars.get(key, 8) * CHAR_W + 28 for key in column), default=0)
        y = MARGIN
        for key in column:
            kind = kinds.get(key, "agent")
            height = NODE_H[kind]
            boxes[key] = Box(key, kind, number, x, y, width, height)
            y += height + ROW_GAP
        heights.append(y - ROW_GAP)
        x += width + COLUMN_GAP
    total = max(heights, default=MARGIN) + MARGIN
    boxes = _centre_columns(boxes, heights, total)
    return Layout(boxes, x - COLUMN_GAP + MARGIN + 60, total)


def _centre_columns(boxes: dict[str, Box], heights: list[float], total: float) -> dict[str, Box]:
    """Shift each column down so that it sits in the middle of the tallest one."""
    centred = {}
    for key, box in boxes.items():
        shift = (total - MARGIN - heights[box.column]) / 2
        centred[key] = Box(box.key, box.kind, box.column, box.x, box.y + shift, box.width,
                           box.height)
    return centred
