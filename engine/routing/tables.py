"""Compiled forms of one agent's routing policy and of one rule, ready to evaluate.

Built by the compile step (see `engine.routing.compiled`) so that routing a request never
re-reads the config models. Pure and deterministic; no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from engine.config.models import ANYONE, AgentSpec, RuleSpec
from engine.routing.index import Phrase
from engine.text.normalize import Normalizer, normalizer_for

SMALL = 8
"""Up to this many names are looked up in the model's own tuple: as fast as a set at that
size, and 10,000 agents' small sets would otherwise hold megabytes."""


def _allow_set(names: tuple[str, ...]) -> Collection[str] | None:
    """`None` means "anyone" (the list holds `*`); an empty collection means no one."""
    if ANYONE in names:
        return None
    return names if len(names) <= SMALL else frozenset(names)


class AgentPolicy(NamedTuple):
    """One agent's routing facts: position (declaration order), enabled, allowed peers
    (targets it may hand off to) and accepted sources; `None` sets mean anyone. A NamedTuple:
    a config set may hold 10,000 agents and this is built once per agent on every reload."""

    name: str
    position: int
    enabled: bool
    peers: Collection[str] | None
    accepts: Collection[str] | None

    @classmethod
    def of(cls, agent: AgentSpec, position: int) -> AgentPolicy:
        return cls(
            agent.name,
            position,
            agent.enabled,
            _allow_set(agent.peers),
            _allow_set(agent.accepts.from_agents),
        )


@dataclass(frozen=True, slots=True)
class CompiledRule:
    """A rule's `when` in evaluation-ready form. `None` / empty means "no condition"."""

    id: str
    to: str
    priority: int
    position: int
    tools: frozenset[str] | None
    sources: frozenset[str] | None
    any_keywords: tuple[Phrase, ...]
    all_keywords: tuple[Phrase, ...]
    spelling: Mapping[Phrase, str]
    capabilities: tuple[str, ...]
    priority_range: tuple[int, int] | None
    context: tuple[tuple[str, Any], ...]
    spec: RuleSpec

    @classmethod
    def of(
        cls, rule: RuleSpec, position: int, *, normalizer: Normalizer | None = None
    ) -> CompiledRule:
        phrase = (normalizer or normalizer_for()).phrase
        when = rule.when
        sources = frozenset(when.from_agents) if when.from_agents else None
        if sources is not None and ANYONE in sources:
            sources = None
        span = None if when.priority is None else (when.priority.min, when.priority.max)
        return cls(
            id=rule.id,
            to=rule.to,
            priority=rule.priority,
            position=position,
            tools=frozenset(when.tool) if when.tool else None,
            sources=sources,
            any_keywords=tuple(p for p in map(phrase, when.keywords.any) if p),
            all_keywords=tuple(p for p in map(phrase, when.keywords.all) if p),
            spelling=MappingProxyType({
                phrase(k): k for k in (*when.keywords.all, *when.keywords.any) if phrase(k)
            }),
            capabilities=tuple(when.capabilities),
            priority_range=span,
            context=tuple(when.context.items()),
            spec=rule,
        )

    @property
    def needs_text(self) -> bool:
        return bool(self.any_keywords or self.all_keywords or self.capabilities)
