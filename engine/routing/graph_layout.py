"""A layered left-to-right layout of the agent topology: placed boxes and routed edge paths.

Column 0 holds the ways in (entry, rules, fallback, in the order given); agents follow by
handoff distance from the entry agent, unreachable ones last. An edge that skips columns runs
through a lane in each column between, so no line passes under a box. Pure geometry.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.routing.graph import Edge

CHAR_W = 8.2
"""Advance of one character of a box's label (13 px semibold sans-serif), in pixels."""
DETAIL_W = 6.7
"""Advance of one character of a box's detail line (11 px monospace)."""
NODE_H = {"agent": 46.0, "entry": 30.0, "fallback": 30.0, "rule": 40.0}
COLUMN_GAP, ROW_GAP, LANE_GAP, MARGIN = 110.0, 22.0, 12.0, 20.0
SWEEPS = 4
PORT_STEP = 9.0
"""Vertical distance between the ends of edges that meet on the same side of a box."""

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Node:
    """What one box shows. `key` as in the edges (keys starting `lane:` are the layout's
    own); `kind` agent, entry, rule or fallback; `note` a longer text for a tooltip."""

    key: str
    kind: str
    label: str
    detail: str = ""
    note: str = ""
    disabled: bool = False
    entry: bool = False  # the entry agent

    @property
    def title(self) -> str:
        """The first line as drawn."""
        return f"{self.label} (disabled)" if self.disabled else self.label


@dataclass(frozen=True, slots=True)
class Box:
    node: Node
    column: int
    x: float
    y: float
    width: float
    height: float

    @property
    def middle(self) -> float:
        return self.y + self.height / 2


@dataclass(frozen=True, slots=True)
class Link:
    """One drawn edge, from its source to its target as cubic segments: the start point, then
    (control, control, end) per segment. `both`: a handoff both ways, one line with two heads."""

    edge: Edge
    both: bool
    points: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class Layout:
    width: float
    height: float
    boxes: tuple[Box, ...]
    links: tuple[Link, ...]


def _columns(nodes: Sequence[Node], edges: Sequence[Edge], entry: str) -> list[list[str]]:
    """Ways in first; agents by breadth-first handoff distance from `entry`."""
    agents = [node.key for node in nodes if node.kind == "agent"]
    adjacent: dict[str, list[str]] = {key: [] for key in agents}
    for edge in edges:
        if edge.kind == "handoff":
            adjacent[edge.source].append(edge.target)
    distance = {entry: 0} if entry in adjacent else {}
    queue = deque(distance)
    while queue:
        key = queue.popleft()
        for other in adjacent[key]:
            if other not in distance:
                distance[other] = distance[key] + 1
                queue.append(other)
    last = max(distance.values(), default=-1) + 1
    columns: list[list[str]] = [[] for _ in range(last + 1)]
    for key in agents:
        columns[distance.get(key, last)].append(key)
    return [[node.key for node in nodes if node.kind != "agent"], *filter(None, columns)]


def _merged(edges: Sequence[Edge]) -> list[tuple[Edge, bool]]:
    """Edges to draw, a handoff that goes both ways once (flagged True)."""
    handoffs = {(e.source, e.target) for e in edges if e.kind == "handoff"}
    drawn, seen = [], set()
    for edge in edges:
        both = edge.kind == "handoff" and (edge.target, edge.source) in handoffs
        pair = frozenset((edge.source, edge.target))
        if both and pair in seen:
            continue
        seen.add(pair)
        drawn.append((edge, both))
    return drawn


def _chains(links: list[tuple[Edge, bool]], columns: list[list[str]]) -> list[list[str]]:
    """Each link's keys from its left end to its right end, with a lane key for every column
    it crosses; the lanes are added to their columns."""
    column = {key: n for n, keys in enumerate(columns) for key in keys}
    chains = []
    for number, (edge, _) in enumerate(links):
        left, right = sorted((edge.source, edge.target), key=lambda key: column[key])
        lanes = []
        for crossed in range(column[left] + 1, column[right]):
            lanes.append(f"lane:{number}:{crossed}")
            columns[crossed].append(lanes[-1])
        chains.append([left, *lanes, right])
    return chains


def _stack(keys: list[str], height: Callable[[str], float]) -> tuple[list[float], float]:
    """Top of each item from 0 (boxes ROW_GAP apart, lanes LANE_GAP from anything), and the
    column's height."""
    tops, y = [], 0.0
    for n, key in enumerate(keys):
        if n:
            y += ROW_GAP if height(key) and height(keys[n - 1]) else LANE_GAP
        tops.append(y)
        y += height(key)
    return tops, y


def _centred(keys: list[str], height: Callable[[str], float], tallest: float) -> dict[str, float]:
    """The vertical middle of each item of a column centred on a column `tallest` high."""
    tops, total = _stack(keys, height)
    return {key: MARGIN + (tallest - total) / 2 + top + height(key) / 2
            for key, top in zip(keys, tops, strict=True)}


def _middles(columns: list[list[str]], height: Callable[[str], float]) -> dict[str, float]:
    """The vertical middle of every item, each column centred on the tallest."""
    tallest = max((_stack(keys, height)[1] for keys in columns), default=0.0)
    return {key: y for keys in columns for key, y in _centred(keys, height, tallest).items()}


def _order(columns: list[list[str]], chains: list[list[str]],
           height: Callable[[str], float]) -> None:
    """Barycenter sweeps, alternately from the left and from the right: each agent column
    (column 0 keeps its meaningful order) sorted by the mean height of each item's neighbours
    in the column the sweep comes from."""
    column = {key: n for n, keys in enumerate(columns) for key in keys}
    near: dict[tuple[str, int], list[str]] = {}
    for chain in chains:
        for a, b in itertools.pairwise(chain):
            near.setdefault((a, column[b]), []).append(b)
            near.setdefault((b, column[a]), []).append(a)
    for sweep in range(SWEEPS):
        step = -1 if sweep % 2 == 0 else 1
        middle = _middles(columns, height)
        tallest = max((_stack(keys, height)[1] for keys in columns), default=0.0)
        for number in range(1, len(columns))[::-step]:
            wanted = {}
            for key in columns[number]:
                ys = [middle[k] for k in near.get((key, number + step), ())]
                wanted[key] = sum(ys) / len(ys) if ys else middle[key]
            columns[number].sort(key=wanted.__getitem__)
            middle.update(_centred(columns[number], height, tallest))


def _widths(columns: list[list[str]], nodes: dict[str, Node]) -> tuple[list[float], list[float]]:
    """The left edge and the width of each column (its widest box)."""
    lefts, widths, x = [], [], MARGIN
    for keys in columns:
        texts = [nodes[key] for key in keys if key in nodes]
        width = max((max(len(n.title) * CHAR_W, len(n.detail) * DETAIL_W) + 28 for n in texts),
                    default=0.0)
        lefts.append(x)
        widths.append(width)
        x += width + COLUMN_GAP
    return lefts, widths


def _ports(chains: list[list[str]], boxes: dict[str, Box],
           middles: dict[str, float]) -> dict[tuple[int, int], float]:
    """Where each chain meets its end boxes: (chain, 0 or -1) -> y. Ends on the same side of a
    box are spread over its height, ordered by where their lines go, so they do not cross."""
    sides: dict[tuple[str, str], list[tuple[float, int, int]]] = {}
    for number, chain in enumerate(chains):
        left, right = boxes[chain[0]], boxes[chain[-1]]
        same = left.column == right.column
        sides.setdefault((chain[0], "right"), []).append((middles[chain[1]], number, 0))
        side = "right" if same else "left"
        sides.setdefault((chain[-1], side), []).append((middles[chain[-2]], number, -1))
    ports = {}
    for (key, _), ends in sides.items():
        box = boxes[key]
        spread = min(PORT_STEP * (len(ends) - 1), box.height - 14)
        for n, (_, number, end) in enumerate(sorted(ends)):
            offset = spread * (n / (len(ends) - 1) - 0.5) if len(ends) > 1 else 0.0
            ports[number, end] = box.middle + offset
    return ports


def _segments(waypoints: list[Point], *, arc: bool) -> list[Point]:
    """Cubic segments through `waypoints`: S-curves left to right, or one arc on the right."""
    if arc:
        (x, y1), (_, y2) = waypoints
        bulge = 26 + abs(y2 - y1) * 0.18
        return [(x, y1), (x + bulge, y1), (x + bulge, y2), (x, y2)]
    points = [waypoints[0]]
    for (x1, y1), (x2, y2) in itertools.pairwise(waypoints):
        bend = (x2 - x1) / 2
        points += [(x1 + bend, y1), (x2 - bend, y2), (x2, y2)]
    return points


def _route(chain: list[str], ends: tuple[float, float], boxes: dict[str, Box],
           middles: dict[str, float], columns: tuple[list[float], list[float]]) -> list[Point]:
    """The path of one chain from its left end to its right end."""
    left, right = boxes[chain[0]], boxes[chain[-1]]
    if left.column == right.column:
        x = left.x + left.width
        return _segments([(x, ends[0]), (x, ends[1])], arc=True)
    lefts, widths = columns
    waypoints = [(left.x + left.width, ends[0])]
    for column, lane in enumerate(chain[1:-1], start=left.column + 1):
        waypoints += [(lefts[column], middles[lane]), (lefts[column] + widths[column],
                                                       middles[lane])]
    waypoints.append((right.x, ends[1]))
    return _segments(waypoints, arc=False)


def layout(nodes: Sequence[Node], edges: Sequence[Edge], *, entry: str) -> Layout:
    """Place every node and route every edge between them; `entry` is the entry agent's key."""
    by_key = {node.key: node for node in nodes}

    def height(key: str) -> float:
        return NODE_H[by_key[key].kind] if key in by_key else 0.0

    columns = _columns(nodes, edges, entry)
    drawn = _merged(edges)
    chains = _chains(drawn, columns)
    _order(columns, chains, height)
    middles = _middles(columns, height)
    lefts, widths = _widths(columns, by_key)
    boxes = {key: Box(by_key[key], n, lefts[n], middles[key] - height(key) / 2, widths[n],
                      height(key))
             for n, keys in enumerate(columns) for key in keys if key in by_key}
    ports = _ports(chains, boxes, middles)
    links = []
    for number, ((edge, both), chain) in enumerate(zip(drawn, chains, strict=True)):
        path = _route(chain, (ports[number, 0], ports[number, -1]), boxes, middles,
                      (lefts, widths))
        links.append(Link(edge, both, tuple(path if chain[0] == edge.source else path[::-1])))
    xs = [b.x + b.width for b in boxes.values()] + [x for link in links for x, _ in link.points]
    ys = [b.y + b.height for b in boxes.values()] + list(middles.values())
    return Layout(max(xs, default=0.0) + MARGIN, max(ys, default=0.0) + MARGIN,
                  tuple(boxes.values()), tuple(links))
