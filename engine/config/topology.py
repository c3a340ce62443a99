"""Topology warnings of a linked config set: unreachable agents, dead ends, shadowed rules,
rules that policy always refuses.

Handoff edges are the policy the router enforces: A -> B when both are enabled, A != B,
A's `peers` allow B and B's `accepts.from` allows A. Warnings only; nothing here blocks a load.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import NamedTuple

from engine.config.build import Locator
from engine.config.models import ANYONE, ConfigSet, RuleSpec
from engine.issues import Issue
from engine.text.normalize import normalizer_for


def handoff_edges(config: ConfigSet) -> dict[str, list[str]]:
    """Agent -> the agents it may hand off to under peers/accepts policy (enabled only)."""
    enabled = {name: agent for name, agent in config.agents.items() if agent.enabled}
    edges = {}
    for sender in enabled.values():
        named = enabled if ANYONE in sender.peers else sender.peers
        edges[sender.name] = [
            target
            for target in named
            if target in enabled
            and target != sender.name
            and enabled[target].accepts_from(sender.name)
        ]
    return edges


def _reachable(edges: dict[str, list[str]], entry: str) -> set[str]:
    seen = {entry}
    queue = deque([entry])
    while queue:
        for target in edges.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


class _Graph(NamedTuple):
    """A build's handoff graph and the facts it was drawn from."""

    facts: tuple[str, tuple[tuple[str, bool, tuple[str, ...], tuple[str, ...]], ...]]
    """The entry, and each agent's name, enabled, peers and accepted senders."""
    edges: dict[str, list[str]]
    reached: set[str]


@dataclass(slots=True)
class TopologyMemo:
    """The last build's handoff graph, reused while every agent's policy facts (name, enabled,
    peers, accepts) and the entry are unchanged: a one-file edit that leaves them alone does
    not walk 10,000 agents' edges again."""

    last: _Graph | None = None


def _graph(
    config: ConfigSet, memo: TopologyMemo | None
) -> tuple[dict[str, list[str]], set[str]]:
    facts = (config.engine.entry, tuple(
        (agent.name, agent.enabled, agent.peers, agent.accepts.from_agents)
        for agent in config.agents.values()
    ))
    last = memo.last if memo is not None else None
    if last is not None and last.facts == facts:
        return last.edges, last.reached
    edges = handoff_edges(config)
    reached = _reachable(edges, config.engine.entry)
    if memo is not None:
        memo.last = _Graph(facts, edges, reached)
    return edges, reached


def agent_warnings(
    config: ConfigSet,
    locator: Locator,
    *,
    memo: TopologyMemo | None = None,
    names: Iterable[str] | None = None,
) -> list[Issue]:
    """Unreachable and dead-end agents; sound only on a complete set (every agent built).
    `memo` carries the handoff graph between builds of the same set. `names`: only those
    agents, with the graph `memo` holds (the caller knows no agent's policy facts changed
    since it was made)."""
    last = memo.last if memo is not None and names is not None else None
    edges, reached = (last[1], last[2]) if last is not None else _graph(config, memo)
    issues: list[Issue] = []
    for name in config.agents if names is None else names:
        issues += _warnings(config, locator, name, edges, reached)
    return issues


def _warnings(
    config: ConfigSet, locator: Locator, name: str, edges: dict[str, list[str]],
    reached: set[str],
) -> list[Issue]:
    agent = config.agents[name]
    if not agent.enabled:
        return []
    document = locator.agents[name]
    issues = []
    if name not in reached:
        message = (
            f"agent {name!r} cannot be reached from the entry agent "
            f"{config.engine.entry!r} through allowed handoffs"
        )
        issues.append(locator.at(document, ("name",), "unreachable-agent", message))
    if not agent.terminal and not edges.get(name):
        message = f"agent {name!r} can hand off to no one; set `terminal: true` if intended"
        where = ("peers",) if agent.peers else ("name",)
        issues.append(locator.at(document, where, "dead-end-agent", message))
    return issues


def condition_key(
    rule: RuleSpec, phrase: Callable[[str], tuple[str, ...]] | None = None
) -> Hashable:
    """Conditions of a rule, normalised so list order does not matter, and keywords compared
    as the router reads them (`phrase`: `Card` and `card` are one keyword)."""
    when = rule.when
    priority = (when.priority.min, when.priority.max) if when.priority else None
    words = phrase or (lambda keyword: (keyword,))
    return (
        frozenset(when.tool),
        frozenset(when.from_agents),
        frozenset(map(words, when.keywords.any)),
        frozenset(map(words, when.keywords.all)),
        frozenset(when.capabilities),
        priority,
        tuple(sorted((key, repr(value)) for key, value in when.context.items())),
    )


def shadowed_rules(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Rules another rule with the same conditions always answers first."""
    order = {rule.id: index for index, rule in enumerate(config.routing.rules)}
    ranked = sorted(config.routing.rules, key=lambda rule: (-rule.priority, order[rule.id]))
    phrase = normalizer_for(config.engine.normalization).phrase
    first_with: dict[Hashable, RuleSpec] = {}
    issues = []
    for rule in ranked:
        key = condition_key(rule, phrase)
        earlier = first_with.setdefault(key, rule)
        if earlier is rule:
            continue
        document, index = locator.rules[rule.id]
        message = (
            f"rule {rule.id!r} never fires: rule {earlier.id!r} (priority "
            f"{earlier.priority}) has the same conditions and is tried first"
        )
        issues.append(locator.at(document, ("rules", index), "shadowed-rule", message))
    return issues


def refused_rules(
    config: ConfigSet, locator: Locator, *, memo: TopologyMemo | None = None
) -> list[Issue]:
    """Rules whose target no sender they apply to may hand off to (its `when.from`, or any
    enabled agent): policy refuses every request the rule answers, so it routes nothing and
    its requests fall through to the next rule or layer. Sound only on a complete set."""
    edges, _reached = _graph(config, memo)
    into: dict[str, set[str]] = {}
    for sender, targets in edges.items():
        for target in targets:
            into.setdefault(target, set()).add(sender)
    issues = []
    for rule in config.routing.rules:
        reaching = into.get(rule.to, set())
        if reaching and (not rule.when.from_agents or reaching & set(rule.when.from_agents)):
            continue
        who = ", ".join(repr(name) for name in rule.when.from_agents) or "any agent"
        message = (
            f"rule {rule.id!r} never routes: policy refuses every handoff it proposes, "
            f"since {rule.to!r} is not a permitted target of {who} (peers, accepts.from, "
            "enabled)"
        )
        document, where = locator.rules[rule.id]
        issues.append(locator.at(document, ("rules", where, "to"), "rule-always-refused",
                                 message))
    return issues


def topology_warnings(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Every topology warning of a linked `config`."""
    return (agent_warnings(config, locator) + shadowed_rules(config, locator)
            + refused_rules(config, locator))
