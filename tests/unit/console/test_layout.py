"""The layered layout: ways in first, agents by handoff distance from the entry, no overlaps."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from engine.config.snapshot import Snapshot
from engine.console.layout import Box, layout
from engine.routing.graph import topology

from .conftest import agent_file


def _placed(snapshot: Snapshot) -> dict[str, Box]:
    shape = topology(snapshot)
    chars = dict.fromkeys([*shape.agents, *(n for n, _ in shape.rules), "entry", "fallback"], 10)
    return layout(shape, entry=snapshot.config.engine.entry, label_chars=chars).boxes


def test_agents_sit_at_their_handoff_distance_unreachable_last(
    make_set: Callable[..., Snapshot],
) -> None:
    snapshot = make_set(
        {"a": agent_file("a", peers="[b]"), "b": agent_file("b", peers="[c, a]"),
         "c": agent_file("c"), "lonely": agent_file("lonely")},
        entry="a",
    )
    boxes = _placed(snapshot)
    assert [boxes[n].column for n in ("a", "b", "c", "lonely")] == [1, 2, 3, 4]
    assert boxes["a"].x < boxes["b"].x < boxes["c"].x < boxes["lonely"].x


def test_boxes_of_a_column_never_overlap(make_set: Callable[..., Snapshot]) -> None:
    names = [f"agent{n}" for n in range(7)]
    agents = {"hub": agent_file("hub", peers="['*']")}
    agents.update({name: agent_file(name, peers="[hub]") for name in names})
    rules = "".join(f"  - {{id: r{n}, to: {name}, when: {{keywords: {{any: [w{n}]}}}}}}\n"
                    for n, name in enumerate(names))
    snapshot = make_set(agents, entry="hub", routing=f"rules:\n{rules}fallback: hub\n")
    boxes = list(_placed(snapshot).values())
    for column in {box.column for box in boxes}:
        stacked = sorted((b for b in boxes if b.column == column), key=lambda b: b.y)
        for upper, lower in itertools.pairwise(stacked):
            assert upper.y + upper.height < lower.y
    assert [b.column for b in boxes].count(0) == len(names) + 2  # rules, entry and fallback
