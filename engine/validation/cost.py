"""What checking one value against a user-written schema can cost, worked out from the schema
alone: `loop`s that never end, and `cost` when one subschema is applied too many times to one
value (fan-out) or more and more times deeper down (recursion). Never validates an instance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.validation.audit import Finding, Path, SchemaWalk
from engine.validation.graph import Graph, Node, build_graph

PER_VALUE_LIMIT = 256
"""Keyword applications a value below the root may receive for the compiled check to be used."""
ROOT_LIMIT = 10_000
"""Keyword applications the root value may receive for the compiled check to be used."""
REPEAT_LIMIT = 64
"""Times one subschema may be applied to one value before the schema is reported."""
DEPTH = 100
"""Deepest payload the analysis follows (the most `input_limits.max_depth` allows)."""

Counts = dict[Node, int]


@dataclass(frozen=True, slots=True)
class Cost:
    """`root` and `per_value`: the most keyword applications the root value and any value
    below it can receive; `repeats`: the most times one subschema is applied to one value;
    `recursion`: a `$ref` through which `repeats` grows with depth, if it does; `loops`:
    `$ref`s that re-apply a schema to the value it is checking. Counting stops once the
    schema is known to be over a limit."""

    root: int
    per_value: int = 0
    repeats: int = 1
    recursion: Path | None = None
    loops: tuple[Path, ...] = ()

    @property
    def bounded(self) -> bool:
        """Whether checking a payload applies at most `ROOT_LIMIT` keywords to its root and
        `PER_VALUE_LIMIT` to each other value: linear in its size, with that factor."""
        return (not self.loops and self.recursion is None and self.repeats <= REPEAT_LIMIT
                and self.root <= ROOT_LIMIT and self.per_value <= PER_VALUE_LIMIT)


def schema_cost(schema: Any) -> Cost:
    """The cost of `schema`: one that passed meta-validation and `schema_findings`."""
    if not isinstance(schema, dict):  # `true` or `false`: one answer, whatever the value
        return Cost(1)
    graph = build_graph(SchemaWalk(schema))
    if graph.loops:
        return Cost(0, loops=graph.loops)
    counts = graph.closure({graph.root: 1})
    worst, repeats, seen = 0, max(counts.values()), [counts]
    for _ in range(DEPTH):
        applied, counts = _step(graph, counts)
        worst, repeats = max(worst, applied), max(repeats, *counts.values(), 0)
        if repeats > REPEAT_LIMIT or not counts or any(_within(counts, old) for old in seen):
            break  # over the limit, nothing deeper, or a repeat of what was already counted
        seen.append(counts)
    else:
        return Cost(graph.applied(graph.root), worst, repeats, graph.recursion())
    growing = repeats > REPEAT_LIMIT and len(seen) > 1 and repeats > max(seen[0].values())
    return Cost(graph.applied(graph.root), worst, repeats,
                graph.recursion() if growing else None)


def _within(counts: Counts, earlier: Counts) -> bool:
    return all(count <= earlier.get(node, 0) for node, count in counts.items())


def _step(graph: Graph, counts: Counts) -> tuple[int, Counts]:
    """From the counts at one depth: the most applications one child value can receive, and
    the counts for a child value, the most each subschema can reach one child (over the key
    or index it has)."""
    names: defaultdict[str, Counts] = defaultdict(dict)
    prefix: defaultdict[int, Counts] = defaultdict(dict)
    other: Counts = {}
    items: Counts = {}
    keys: Counts = {}
    for node, count in counts.items():
        down = graph.down[node]
        if down is None:
            continue
        _add(other, down.other, count)
        _add(items, down.items, count)
        _add(keys, down.keys, count)
        for name, group in down.names.items():
            _add(names[name], group, count)
            _add(names[name], down.other, -count)
        for index, group in enumerate(down.prefix):
            _add(prefix[index], group, count)
            _add(prefix[index], down.items, -count)
    applied = max(graph.cost_of(other) + _best(map(graph.cost_of, names.values())),
                  graph.cost_of(items) + _best(map(graph.cost_of, prefix.values())),
                  graph.cost_of(keys))
    return applied, _widest(graph, [(keys, []), (other, list(names.values())),
                                     (items, list(prefix.values()))])


def _add(counts: Counts, group: Iterable[Node | None], count: int) -> None:
    for target in group:
        if target is not None:
            counts[target] = counts.get(target, 0) + count


def _best(deltas: Iterable[int]) -> int:
    return max(0, max(deltas, default=0))


def _widest(graph: Graph, classes: list[tuple[Counts, list[Counts]]]) -> Counts:
    """The most times each subschema reaches one child value, over the classes of children:
    each a base and variants of it (a named key instead of any key, an index instead of any)."""
    widest: Counts = {}
    for base, variants in classes:
        reached = graph.closure(base)
        for node, count in reached.items():
            widest[node] = max(widest.get(node, 0), count)
        for variant in variants:
            for node, change in graph.closure(variant).items():
                widest[node] = max(widest.get(node, 0), reached.get(node, 0) + change)
    return {node: count for node, count in widest.items() if count > 0}


def cost_findings(schema: Any) -> list[Finding]:
    """The `loop` and `cost` findings of `schema`, each located at a `$ref` when one is to
    blame (else at the schema's root)."""
    cost = schema_cost(schema)
    loops = [Finding(path, "loop", f"$ref {_ref_at(schema, path)!r} applies a schema to the "
                     "value it is already checking: the check would recurse without end")
             for path in cost.loops]
    if loops:
        return loops
    if cost.recursion is not None:
        message = (f"$ref {_ref_at(schema, cost.recursion)!r} recurses through several "
                   "branches: the work of checking a payload grows with its depth")
        return [Finding(cost.recursion, "cost", _budgeted(message))]
    if cost.repeats > REPEAT_LIMIT:
        message = (f"one subschema is applied more than {REPEAT_LIMIT} times to one payload "
                   "value (anyOf/oneOf/allOf and $refs fanning out)")
        return [Finding((), "cost", _budgeted(message))]
    return []


def _budgeted(message: str) -> str:
    return (f"{message}; such payloads are checked by the slower budgeted validator and "
            "refused when their check needs more than its work budget")


def _ref_at(schema: Any, path: Path) -> Any:
    node = schema
    for part in path:
        node = node[part]
    return node
