"""The `contradicting-example` warning: one utterance, once normalized, listed as an example
of two different agents (directly, or through capabilities that different agents declare).

Reads linked models and the set's normalization; warnings only, nothing here blocks a load.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config.build import Locator
from engine.config.models import ConfigSet
from engine.config.positions import Document, PathKey
from engine.issues import Issue
from engine.text.normalize import normalizer_for


@dataclass(frozen=True, slots=True)
class _Listed:
    agents: frozenset[str]
    document: Document
    path: PathKey
    text: str

    def where(self) -> str:
        line, _col = self.document.locate(self.path)
        return f"{self.document.file}:{line}"


def _listed(config: ConfigSet, locator: Locator) -> list[_Listed]:
    """Every example with the agents it routes to, in declaration order."""
    found = []
    for agent in config.agents.values():
        document = locator.agents[agent.name]
        for n, text in enumerate(agent.examples):
            found.append(_Listed(frozenset({agent.name}), document, ("examples", n), text))
    holding: dict[str, set[str]] = {}
    for agent in config.agents.values():
        for name in agent.capabilities:
            holding.setdefault(name, set()).add(agent.name)
    for name, capability in config.capabilities.items():
        holders = frozenset(holding.get(name, ()))
        declared = locator.capabilities.get(name)
        if not holders or declared is None:
            continue
        for n, text in enumerate(capability.examples):
            found.append(_Listed(holders, declared, ("capabilities", name, "examples", n), text))
    return found


def contradicting_examples(config: ConfigSet, locator: Locator) -> list[Issue]:
    """A warning at every example whose normalized words an earlier example of other agents
    already has: the examples layer cannot route the same words to both."""
    normalize = normalizer_for(config.engine.normalization).tokens
    first: dict[tuple[str, ...], _Listed] = {}
    issues = []
    for listed in _listed(config, locator):
        earlier = first.setdefault(tuple(normalize(listed.text)), listed)
        if earlier is listed or earlier.agents == listed.agents:
            continue
        message = (
            f"example {listed.text!r} of {', '.join(sorted(listed.agents))} is the same "
            f"utterance as {earlier.text!r} ({earlier.where()}), an example of "
            f"{', '.join(sorted(earlier.agents))}; keep it under one agent"
        )
        issues.append(locator.at(listed.document, listed.path, "contradicting-example", message))
    return issues
