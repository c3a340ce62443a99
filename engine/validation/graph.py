"""A user-written schema as a graph for `engine.validation.cost`: subschemas are nodes, edges
lead to the subschemas applied to the same value (applicators, `$ref`) or to a child value
(child keywords, grouped by which child). Never validates an instance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.validation.audit import Path, SchemaWalk

Node = int
Target = Node | None
_SAME_ONE = ("not", "if", "then", "else")
_SAME_LIST = ("allOf", "anyOf", "oneOf")
_REFS = ("$ref", "$dynamicRef")


@dataclass(frozen=True, slots=True)
class Down:
    """The subschemas the child keywords of one subschema apply to one child value: a key
    named in `properties` (`names`), any other key (`other`), the key itself (`keys`), an item
    at a `prefixItems` index (`prefix`) or past them (`items`). Repeats count."""

    names: dict[str, list[Target]]
    other: list[Target]
    keys: list[Target]
    prefix: tuple[list[Target], ...]
    items: list[Target]

    def targets(self) -> Iterator[Target]:
        for group in (*self.names.values(), self.other, self.keys, *self.prefix, self.items):
            yield from group


class Graph:
    """Nodes are positions of a `SchemaWalk` (0 is the root); see the module docstring."""

    def __init__(self, walk: SchemaWalk) -> None:
        self.root: Node = 0
        self._index = {id(node): at for at, (_, node, _) in enumerate(walk.positions)}
        self._nodes = [node for _, node, _ in walk.positions]
        self.same: list[list[Target]] = []
        self.refs: list[tuple[Node, Node, Path]] = []
        for at, (path, node, scope) in enumerate(walk.positions):
            self.same.append([*self._applicators(node), *self._resolved(at, path, node, scope,
                                                                        walk)])
        component = _components(self.same)
        first: dict[int, Path] = {}
        for source, target, path in self.refs:
            if component[source] == component[target]:
                first.setdefault(component[source], path)
        self.loops = tuple(first.values())  # one `$ref` of each loop
        self.down: list[Down | None] = []
        self._applied: list[int] = []
        self._rank: dict[Node, int] = {}
        if not self.loops:
            self._measure()

    def _target(self, subschema: Any) -> Target:
        return self._index.get(id(subschema)) if isinstance(subschema, dict) else None

    def _applicators(self, node: dict[str, Any]) -> Iterator[Target]:
        for key, value in node.items():
            if key in _SAME_ONE:
                yield self._target(value)
            elif key in _SAME_LIST and isinstance(value, list):
                yield from map(self._target, value)
            elif key == "dependentSchemas" and isinstance(value, dict):
                yield from map(self._target, value.values())

    def _resolved(
        self, at: Node, path: Path, node: dict[str, Any], scope: Any, walk: SchemaWalk
    ) -> Iterator[Target]:
        for keyword in _REFS:
            ref = node.get(keyword)
            if scope is None or not isinstance(ref, str):
                continue
            found = walk.target(scope, ref)
            if found.verdict != "ok":
                continue  # reported by the audit; nothing is applied
            target = self._target(found.contents)
            if isinstance(found.contents, dict) and target is None:
                continue  # data, not a subschema: reported by the audit
            if target is not None:
                self.refs.append((at, target, (*path, keyword)))
            yield target

    def _measure(self) -> None:
        order = _topological(self.same)
        self._rank = {node: rank for rank, node in enumerate(order)}
        self._applied = [0] * len(self._nodes)
        depth = [0] * len(self._nodes)
        for node in reversed(order):
            targets = [t for t in self.same[node] if t is not None]
            depth[node] = 1 + max((depth[t] for t in targets), default=-1)
            if _annotates(self._nodes[node]):
                self.same[node] *= 1 + depth[node]  # re-applied by the annotation walk
            self._applied[node] = _weight(self._nodes[node]) + sum(map(self.applied,
                                                                       self.same[node]))
        self.down = [self._down(node) for node in self._nodes]

    def applied(self, target: Target) -> int:
        """Keyword applications one value receives from `target` and what it applies in place."""
        return 1 if target is None else self._applied[target]

    def _ones(self, node: dict[str, Any], *keys: str) -> list[Target]:
        return [self._target(node[key]) for key in keys if key in node]

    def cost_of(self, counts: dict[Node, int]) -> int:
        """Keyword applications one value receives when each subschema of `counts` is applied
        to it that many times (with what each applies in place)."""
        return sum(count * self._applied[node] for node, count in counts.items())

    def _down(self, node: dict[str, Any]) -> Down | None:
        patterns = list(map(self._target, _mapping(node, "patternProperties").values()))
        again = 2 if _annotates(node) else 1  # the annotation walk applies these once more
        unevaluated = self._ones(node, "unevaluatedProperties") * again
        every_item = self._ones(node, "contains", "unevaluatedItems") * again
        down = Down(
            names={name: [self._target(sub), *patterns, *unevaluated]
                   for name, sub in _mapping(node, "properties").items()},
            other=[*patterns, *self._ones(node, "additionalProperties") * again, *unevaluated],
            keys=self._ones(node, "propertyNames"),
            prefix=tuple([self._target(sub), *every_item] for sub in _list(node, "prefixItems")),
            items=[*self._ones(node, "items"), *every_item],
        )
        return down if any(True for _ in down.targets()) else None

    def closure(self, entries: dict[Node, int]) -> dict[Node, int]:
        """How many times each subschema applies to one value that `entries` apply to, counting
        every path of applicators from them."""
        counts: defaultdict[Node, int] = defaultdict(int, entries)
        reached, stack = set(entries), list(entries)
        while stack:
            for target in self.same[stack.pop()]:
                if target is not None and target not in reached:
                    reached.add(target)
                    stack.append(target)
        for node in sorted(reached, key=self._rank.__getitem__):
            for target in self.same[node]:
                if target is not None:
                    counts[target] += counts[node]
        return {node: count for node, count in counts.items() if count}

    def recursion(self) -> Path | None:
        """The first `$ref` that leads back to a subschema it is reached from, if any."""
        every = [[*same, *(down.targets() if down is not None else ())]
                 for same, down in zip(self.same, self.down, strict=True)]
        component = _components(every)
        found = [path for source, target, path in self.refs
                 if component[source] == component[target]]
        return min(found, key=lambda path: [str(part) for part in path]) if found else None


def build_graph(walk: SchemaWalk) -> Graph:
    return Graph(walk)


def _mapping(node: dict[str, Any], key: str) -> dict[str, Any]:
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def _list(node: dict[str, Any], key: str) -> list[Any]:
    value = node.get(key)
    return value if isinstance(value, list) else []


def _annotates(node: dict[str, Any]) -> bool:
    """Whether checking `node` walks its in-place subschemas again to find what they evaluated
    (each applicator below it is applied once more per level of nesting)."""
    return "unevaluatedProperties" in node or "unevaluatedItems" in node


def _weight(node: dict[str, Any]) -> int:
    """Keyword applications of one subschema on one value (an `enum` compares its members,
    sixteen for the price of a keyword)."""
    members = node.get("enum")
    return 1 + len(node) + (len(members) // 16 if isinstance(members, list) else 0)


def _topological(edges: list[list[Target]]) -> list[Node]:
    """Nodes of an acyclic graph, each before every node its edges lead to (Kahn)."""
    incoming = [0] * len(edges)
    for targets in edges:
        for target in targets:
            if target is not None:
                incoming[target] += 1
    ready = [node for node, count in enumerate(incoming) if count == 0]
    order: list[Node] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for target in edges[node]:
            if target is not None:
                incoming[target] -= 1
                if incoming[target] == 0:
                    ready.append(target)
    return order


def _components(edges: list[list[Target]]) -> list[int]:
    """The strongly connected component of each node (Tarjan, without recursion)."""
    nodes = [[target for target in targets if target is not None] for targets in edges]
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    component = [-1] * len(nodes)
    stack: list[Node] = []
    for start in range(len(nodes)):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
            targets = nodes[node]
            if at > 0:
                low[node] = min(low[node], low[targets[at - 1]])
            while at < len(targets) and targets[at] in index:
                if component[targets[at]] < 0:
                    low[node] = min(low[node], index[targets[at]])
                at += 1
            if at < len(targets):
                work += [(node, at + 1), (targets[at], 0)]
                continue
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    component[member] = node
                    if member == node:
                        break
    return component
