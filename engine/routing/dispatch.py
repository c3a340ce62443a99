"""The rule dispatch index: which rules could possibly match a request, without trying each.

Every rule is filed under one "anchor" condition it cannot match without (a tool, a context
value, a sender, a word, a capability), or under `always`. A request gathers the rules of its
anchors, in evaluation order; only those are evaluated in full. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine.routing.tables import CompiledRule

if TYPE_CHECKING:
    from engine.routing.conditions import TextView
    from engine.routing.decision import RouteRequest

Buckets = Mapping[Any, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class RuleDispatch:
    """Rule ordinals (positions in evaluation order) by anchor."""

    always: tuple[int, ...]
    by_tool: Buckets
    by_context: Buckets
    by_sender: Buckets
    by_word: Buckets
    by_capability: Buckets
    words: frozenset[str] = frozenset()
    """The keys of `by_word`, to intersect with a request's words in one call."""

    def candidates(self, request: RouteRequest, text: TextView) -> list[int]:
        """Ordinals of the rules worth evaluating for `request`, in evaluation order."""
        found = set(self.always)
        if request.tool is not None:
            found.update(self.by_tool.get(request.tool, ()))
        found.update(self.by_sender.get(request.sender, ()))
        if self.by_context and request.context:
            for item in request.context.items():
                try:
                    found.update(self.by_context.get(item, ()))
                except TypeError:  # an unhashable value never equals a rule's hashable one
                    continue
        if self.by_word:
            for token in self.words.intersection(text.tokens):
                found.update(self.by_word[token])
        if self.by_capability:
            for capability in text.capabilities:
                found.update(self.by_capability.get(capability, ()))
        return sorted(found)


def _hashable(item: tuple[str, Any]) -> bool:
    try:
        hash(item)
    except TypeError:
        return False
    return True


def _anchors(rule: CompiledRule) -> tuple[str, Iterable[Any]]:
    """The most selective condition of a rule, as (bucket name, keys)."""
    if rule.tools is not None:
        return "tool", sorted(rule.tools)
    context = [item for item in rule.context if _hashable(item)]
    if context:
        return "context", context[:1]
    if rule.sources is not None:
        return "sender", sorted(rule.sources)
    if rule.all_keywords:
        return "word", [rule.all_keywords[0][0]]
    if rule.capabilities:
        return "capability", rule.capabilities[:1]
    if rule.any_keywords:
        return "word", [phrase[0] for phrase in rule.any_keywords]
    return "always", [None]


def build_dispatch(rules: Sequence[CompiledRule]) -> RuleDispatch:
    """File every rule (given in evaluation order) under its anchors."""
    buckets: dict[str, dict[Any, list[int]]] = {
        name: {} for name in ("always", "tool", "context", "sender", "word", "capability")
    }
    for ordinal, rule in enumerate(rules):
        kind, keys = _anchors(rule)
        for key in keys:
            ordinals = buckets[kind].setdefault(key, [])
            if not ordinals or ordinals[-1] != ordinal:
                ordinals.append(ordinal)

    def frozen(name: str) -> Buckets:
        return MappingProxyType({k: tuple(v) for k, v in buckets[name].items()})

    return RuleDispatch(
        words=frozenset(buckets["word"]),
        always=tuple(buckets["always"].get(None, ())),
        by_tool=frozen("tool"),
        by_context=frozen("context"),
        by_sender=frozen("sender"),
        by_word=frozen("word"),
        by_capability=frozen("capability"),
    )
