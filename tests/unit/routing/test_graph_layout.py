"""The topology layout: ways in first, agents by handoff distance from the entry, no overlaps,
no line under a box, a handoff both ways drawn once, each link from its source to its target."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from engine.loading.loader import load_config
from engine.routing.graph import topology
from engine.routing.graph_layout import Box, Layout, Link, Point
from engine.routing.graph_svg import snapshot_layout
from engine.routing.snapshot import Snapshot
from tests.conftest import CONFIGS

Build = Callable[..., Snapshot]


def _star(build: Build) -> Snapshot:
    """A hub that hands off to seven desks, a rule to each, and desks that only answer it."""
    names = [f"desk{n}" for n in range(7)]
    agents = [{"name": "hub"}, *({"name": name, "peers": ["hub"]} for name in names)]
    rules = [{"id": f"r{n}", "to": name, "when": {"keywords": {"any": [f"w{n}"]}}}
             for n, name in enumerate(names)]
    return build(agents, rules=rules, fallback="hub")


def _chain(build: Build) -> Snapshot:
    """a -> b -> c (b also back to a), `lonely` unreachable and handing off to a only."""
    return build([{"name": "a", "peers": ["b"]}, {"name": "b", "peers": ["c", "a"]},
                  {"name": "c", "peers": []}, {"name": "lonely", "peers": ["a"]}])


def _sets(build: Build) -> list[Snapshot]:
    return [load_config(CONFIGS / "banking"), load_config(CONFIGS / "research"), _star(build),
            _chain(build)]


def _boxes(drawn: Layout) -> dict[str, Box]:
    return {box.node.key: box for box in drawn.boxes}


def _inside(point: Point, box: Box, *, margin: float = 1.0) -> bool:
    x, y = point
    return (box.x + margin < x < box.x + box.width - margin
            and box.y + margin < y < box.y + box.height - margin)


def _samples(link: Link) -> list[Point]:
    """Points along the link's cubic segments."""
    found = []
    for n in range(0, len(link.points) - 1, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = link.points[n:n + 4]
        for t in (step / 40 for step in range(41)):
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            found.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return found


def test_agents_sit_at_their_handoff_distance_unreachable_last(build: Build) -> None:
    boxes = _boxes(snapshot_layout(_chain(build)))
    agents = [boxes[f"agent:{name}"] for name in ("a", "b", "c", "lonely")]
    assert [box.column for box in agents] == [1, 2, 3, 4]
    assert agents[0].x < agents[1].x < agents[2].x < agents[3].x
    assert agents[0].node.entry and not agents[1].node.entry


def test_the_ways_in_are_column_zero_in_evaluation_order(build: Build) -> None:
    snapshot = load_config(CONFIGS / "banking")
    first = [box for box in snapshot_layout(snapshot).boxes if box.column == 0]
    assert [box.node.label for box in sorted(first, key=lambda box: box.y)] == [
        "entry", *(rule.id for rule in snapshot.rules), "fallback"]
    assert [box.node.kind for box in first].count("rule") == len(snapshot.rules) == 8


def test_boxes_never_overlap_and_fit_the_picture(build: Build) -> None:
    for snapshot in _sets(build):
        drawn = snapshot_layout(snapshot)
        ways = 1 + (snapshot.config.routing.fallback is not None)
        assert len(drawn.boxes) == len(snapshot.agents) + len(snapshot.rules) + ways
        for a, b in itertools.combinations(drawn.boxes, 2):
            apart = (a.x + a.width <= b.x or b.x + b.width <= a.x
                     or a.y + a.height <= b.y or b.y + b.height <= a.y)
            assert apart, (a.node.key, b.node.key)
        for box in drawn.boxes:
            assert box.x > 0 and box.x + box.width < drawn.width
            assert box.y > 0 and box.y + box.height < drawn.height


def test_no_line_passes_under_a_box(build: Build) -> None:
    """An edge that skips columns runs through a lane between the boxes of each column."""
    for snapshot in _sets(build):
        drawn = snapshot_layout(snapshot)
        for link in drawn.links:
            ends = {link.edge.source, link.edge.target}
            for box in drawn.boxes:
                if box.node.key not in ends:
                    hit = [p for p in _samples(link) if _inside(p, box)]
                    assert not hit, (link.edge, box.node.key)


def test_each_link_runs_from_its_source_to_its_target(build: Build) -> None:
    for snapshot in _sets(build):
        drawn = snapshot_layout(snapshot)
        boxes = _boxes(drawn)
        for link in drawn.links:
            assert len(link.points) % 3 == 1  # a start, then three points per cubic segment
            source, target = boxes[link.edge.source], boxes[link.edge.target]
            assert _on_border(link.points[0], source), link.edge
            assert _on_border(link.points[-1], target), link.edge


def _on_border(point: Point, box: Box) -> bool:
    x, y = point
    side = x == pytest.approx(box.x) or x == pytest.approx(box.x + box.width)
    return side and box.y <= y <= box.y + box.height


def test_a_handoff_both_ways_is_one_link_with_two_heads() -> None:
    snapshot = load_config(CONFIGS / "banking")
    pairs = {(e.source, e.target) for e in topology(snapshot).edges if e.kind == "handoff"}
    both = {frozenset(p) for p in pairs if (p[1], p[0]) in pairs}
    handoffs = [link for link in snapshot_layout(snapshot).links if link.edge.kind == "handoff"]
    assert len(handoffs) == len(pairs) - len(both)
    drawn_both = {frozenset((link.edge.source[6:], link.edge.target[6:]))
                  for link in handoffs if link.both}
    assert drawn_both == both and len(both) >= 3


def test_ends_meeting_on_one_side_of_a_box_are_spread(build: Build) -> None:
    drawn = snapshot_layout(load_config(CONFIGS / "banking"))
    ends = [point for link in drawn.links for point in (link.points[0], link.points[-1])]
    fraud = _boxes(drawn)["agent:fraud_agent"]
    left = sorted(y for x, y in ends if x == pytest.approx(fraud.x) and fraud.y <= y
                  <= fraud.y + fraud.height)
    assert len(left) >= 4  # three rules and the concierge's handoff
    assert all(b - a >= 3 for a, b in itertools.pairwise(left))
