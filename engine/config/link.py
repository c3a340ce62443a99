"""Link stage: cross-references of a built config set (names that must exist, must be unique).

Reports `unknown-agent`, `unknown-capability`, `duplicate-trigger`, `entry-conflict` and
`disabled-entry`, each located at the referring node. It reads models only, never files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.config.build import Locator
from engine.config.models import ANYONE, ConfigSet
from engine.config.positions import Document, PathKey
from engine.config.validate import suggest
from engine.issues import Issue


def _names(
    locator: Locator,
    document: Document,
    path: PathKey,
    names: Iterable[str],
    known: Mapping[str, object],
    what: str,
) -> list[Issue]:
    code = "unknown-agent" if what == "agent" else "unknown-capability"
    issues = []
    for index, name in enumerate(names):
        if name == ANYONE or name in known:
            continue
        message = f"{name!r} is not a declared {what}{suggest(name, known)}"
        issues.append(locator.at(document, (*path, index), code, message))
    return issues


def _entry(config: ConfigSet, locator: Locator) -> list[Issue]:
    entry = config.engine.entry
    agent = config.agents.get(entry)
    if agent is None:
        message = f"{entry!r} is not a declared agent{suggest(entry, config.agents)}"
        return [locator.at(locator.engine, ("entry",), "unknown-agent", message)]
    if not agent.enabled:
        message = f"the entry agent {entry!r} is disabled"
        return [locator.at(locator.agents[entry], ("enabled",), "disabled-entry", message)]
    return []


def _agents(config: ConfigSet, locator: Locator) -> list[Issue]:
    issues: list[Issue] = []
    for name, agent in config.agents.items():
        document = locator.agents[name]
        agents, capabilities = config.agents, config.capabilities
        issues += _names(locator, document, ("peers",), agent.peers, agents, "agent")
        issues += _names(
            locator, document, ("accepts", "from"), agent.accepts.from_agents, agents, "agent"
        )
        issues += _names(
            locator, document, ("capabilities",), agent.capabilities, capabilities, "capability"
        )
        if agent.handoff.is_entry_point and name != config.engine.entry:
            message = (
                f"agent {name!r} is marked is_entry_point but the entry is {config.engine.entry!r}"
            )
            where = ("handoff", "is_entry_point")
            issues.append(locator.at(document, where, "entry-conflict", message))
    return issues + _triggers(config, locator)


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


def _routing(config: ConfigSet, locator: Locator) -> list[Issue]:
    issues: list[Issue] = []
    for rule in config.routing.rules:
        document, index = locator.rules[rule.id]
        at: PathKey = ("rules", index)
        if rule.to not in config.agents:
            message = f"{rule.to!r} is not a declared agent{suggest(rule.to, config.agents)}"
            issues.append(locator.at(document, (*at, "to"), "unknown-agent", message))
        priority = rule.when.priority
        if priority is not None and priority.min > priority.max:
            message = f"priority range min {priority.min} > max {priority.max} matches nothing"
            where = (*at, "when", "priority")
            issues.append(locator.at(document, where, "impossible-condition", message))
        issues += _names(
            locator, document, (*at, "when", "from"), rule.when.from_agents, config.agents, "agent"
        )
        issues += _names(
            locator,
            document,
            (*at, "when", "capabilities"),
            rule.when.capabilities,
            config.capabilities,
            "capability",
        )
    fallback = config.routing.fallback
    if fallback is not None and fallback not in config.agents and locator.fallback:
        message = f"{fallback!r} is not a declared agent{suggest(fallback, config.agents)}"
        issues.append(locator.at(locator.fallback, ("fallback",), "unknown-agent", message))
    return issues


def link_config(config: ConfigSet, locator: Locator) -> list[Issue]:
    """Every cross-reference error of `config`."""
    return _entry(config, locator) + _agents(config, locator) + _routing(config, locator)
