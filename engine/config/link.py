"""Link stage: cross-references of a built config set (names that must exist, must be unique).

Reports `unknown-agent`, `unknown-capability`, `duplicate-trigger`, `entry-conflict` and
`disabled-entry`, each located at the referring node. It reads models only, never files, and
runs on whatever part of a set is valid: a name a failed file may declare is never "unknown".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.config.build import Locator
from engine.config.members import Member
from engine.config.models import ANYONE, AgentSpec, ConfigSet
from engine.config.positions import Document, PathKey
from engine.config.validate import suggest
from engine.issues import Issue

KINDS = ("agents", "capabilities")


@dataclass(frozen=True, slots=True)
class Gaps:
    """What the set's failed files may declare: a name they may declare is never reported
    unknown (the real error is in that file). `None`: a failed file of that kind did not
    parse, so any name may be declared there."""

    agents: frozenset[str] | None = frozenset()
    capabilities: frozenset[str] | None = frozenset()
    root: frozenset[str] = frozenset()
    """Top-level keys of engine.yaml in error (see `engine.config.salvage`): the checks that
    read them (`entry`) say nothing."""

    @classmethod
    def of(
        cls, members: Sequence[Member], *, incomplete: Iterable[str] = (),
        root: frozenset[str] = frozenset(),
    ) -> Gaps:
        """From the set's members, the kinds an include problem may have left files out
        of (`incomplete`) and the root's keys in error (`root`)."""
        found: dict[str, frozenset[str] | None] = dict.fromkeys(KINDS, frozenset())
        for kind in incomplete:
            found[kind] = None
        for member in members:
            if member.ok or member.kind not in found:
                continue
            known = found[member.kind]
            declares = member.declares
            found[member.kind] = None if known is None or declares is None else known | declares
        return cls(found["agents"], found["capabilities"], root)

    @property
    def complete(self) -> bool:
        """No agent or capability file failed."""
        return self.agents == frozenset() and self.capabilities == frozenset()

    def may_declare(self, what: str, name: str) -> bool:
        names = self.agents if what == "agent" else self.capabilities
        return names is None or name in names


@dataclass(frozen=True, slots=True)
class _Link:
    config: ConfigSet
    locator: Locator
    gaps: Gaps

    def unknown(self, name: str, what: str) -> bool:
        known: Mapping[str, object] = (
            self.config.agents if what == "agent" else self.config.capabilities
        )
        return name != ANYONE and name not in known and not self.gaps.may_declare(what, name)

    def names(
        self, document: Document, path: PathKey, names: Iterable[str], what: str
    ) -> list[Issue]:
        """`unknown-agent`/`unknown-capability` at each name of the list at `path`."""
        return [
            self.at_unknown(document, (*path, index), name, what)
            for index, name in enumerate(names)
            if self.unknown(name, what)
        ]

    def at_unknown(self, document: Document, path: PathKey, name: str, what: str) -> Issue:
        known = self.config.agents if what == "agent" else self.config.capabilities
        code = "unknown-agent" if what == "agent" else "unknown-capability"
        message = f"{name!r} is not a declared {what}{suggest(name, known)}"
        return self.locator.at(document, path, code, message)


def _entry(link: _Link) -> list[Issue]:
    config, locator = link.config, link.locator
    if "entry" in link.gaps.root:
        return []
    entry = config.engine.entry
    agent = config.agents.get(entry)
    if agent is None:
        if not link.unknown(entry, "agent"):
            return []
        return [link.at_unknown(locator.engine, ("entry",), entry, "agent")]
    if not agent.enabled:
        message = f"the entry agent {entry!r} is disabled"
        return [locator.at(locator.agents[entry], ("enabled",), "disabled-entry", message)]
    return []


class _Names(NamedTuple):
    """What an agent's references may name: a link of an agent holds while these stay equal."""

    agents: frozenset[str]
    capabilities: frozenset[str]
    gaps: Gaps
    entry: str


class _Linked(NamedTuple):
    """One agent of the last build (kept to compare by identity) and the issues it linked to."""

    agent: AgentSpec
    issues: list[Issue]


class _LastLink(NamedTuple):
    names: _Names
    agents: dict[int, _Linked]
    """By the agent model's `id`: a hit is checked to be the very same object."""


@dataclass(slots=True)
class LinkMemo:
    """The last build's issues of each agent, reused for an agent whose model is the very same
    object (its file did not change) while every name it may refer to is unchanged: at 10,000
    agents a one-file reload then links one agent, not all of them."""

    last: _LastLink | None = None
    """One reference, so a concurrent build never sees half of an update."""


def _agent(link: _Link, name: str, agent: AgentSpec) -> list[Issue]:
    config, locator = link.config, link.locator
    document = locator.agents[name]
    issues = link.names(document, ("peers",), agent.peers, "agent")
    issues += link.names(document, ("accepts", "from"), agent.accepts.from_agents, "agent")
    issues += link.names(document, ("capabilities",), agent.capabilities, "capability")
    entry_known = "entry" not in link.gaps.root
    if agent.handoff.is_entry_point and entry_known and name != config.engine.entry:
        message = (
            f"agent {name!r} is marked is_entry_point but the entry is {config.engine.entry!r}"
        )
        where = ("handoff", "is_entry_point")
        issues.append(locator.at(document, where, "entry-conflict", message))
    return issues


def _agents(link: _Link, memo: LinkMemo | None) -> list[Issue]:
    config = link.config
    names = _Names(frozenset(config.agents), frozenset(config.capabilities), link.gaps,
                   config.engine.entry)
    last = memo.last if memo is not None else None
    known = last.agents if last is not None and last.names == names else {}
    issues: list[Issue] = []
    fresh: dict[int, _Linked] = {}
    for name, agent in config.agents.items():
        hit = known.get(id(agent))
        found = hit.issues if hit is not None and hit.agent is agent else _agent(
            link, name, agent)
        fresh[id(agent)] = _Linked(agent, found)
        issues += found
    if memo is not None:
        memo.last = _LastLink(names, fresh)
    return issues + _triggers(config, link.locator)


def _triggers(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Each handoff trigger names one agent; seed 002 let the last declaration silently win."""
    issues: list[Issue] = []
    triggers: dict[str, str] = {}
    for name, agent in config.agents.items():
        trigger = agent.handoff.trigger
        if trigger is None:
            continue
        first = triggers.setdefault(trigger, name)
        if first != name:
            message = (
                f"trigger {trigger!r} is already declared by agent {first!r} "
                f"({locator.agents[first].file})"
            )
            where = ("handoff", "trigger")
            issues.append(locator.at(locator.agents[name], where, "duplicate-trigger", message))
    return issues


def _routing(link: _Link) -> list[Issue]:
    config, locator = link.config, link.locator
    issues: list[Issue] = []
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        at: PathKey = ("rules", index)
        if link.unknown(rule.to, "agent"):
            issues.append(link.at_unknown(document, (*at, "to"), rule.to, "agent"))
        priority = rule.when.priority
        if priority is not None and priority.min > priority.max:
            message = f"priority range min {priority.min} > max {priority.max} matches nothing"
            where = (*at, "when", "priority")
            issues.append(locator.at(document, where, "impossible-condition", message))
        issues += link.names(document, (*at, "when", "from"), rule.when.from_agents, "agent")
        issues += link.names(
            document, (*at, "when", "capabilities"), rule.when.capabilities, "capability"
        )
    fallback = config.routing.fallback
    if fallback is not None and locator.fallback and link.unknown(fallback, "agent"):
        issues.append(link.at_unknown(locator.fallback, ("fallback",), fallback, "agent"))
    return issues


def link_config(
    config: ConfigSet, locator: Locator, *, gaps: Gaps = Gaps(), memo: LinkMemo | None = None
) -> list[Issue]:
    """Every cross-reference error of `config`, built from the set's valid files; `gaps`
    says which names its failed files may declare; `memo` carries results between builds of
    the same set."""
    link = _Link(config, locator, gaps)
    return _entry(link) + _agents(link, memo) + _routing(link)


def agent_links(config: ConfigSet, locator: Locator, names: Iterable[str]) -> list[Issue]:
    """The cross-reference errors of the agents `names` alone, in a set whose files are all
    valid (for a build that replaces only those agents)."""
    link = _Link(config, locator, Gaps())
    return [found for name in names for found in _agent(link, name, config.agents[name])]
