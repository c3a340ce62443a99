"""Evaluating a rule's `when` against one request, and the lazily tokenized view of its text.

Every condition given must hold; an absent one always holds. Pure: no policy, no ordering.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.routing.decision import RouteRequest
from engine.routing.index import KeywordIndex, Phrase
from engine.routing.tables import CompiledRule
from engine.text.normalize import contains


class TextView:
    """The request text normalized once, on first use, and matched against the index once."""

    __slots__ = ("_capabilities", "_explicit", "_index", "_set", "_tokens", "text")

    def __init__(
        self, text: str, index: KeywordIndex, *, explicit: tuple[str, ...] = ()
    ) -> None:
        self.text = text
        self._explicit = explicit
        self._index = index
        self._tokens: list[str] | None = None
        self._set: frozenset[str] | None = None
        self._capabilities: dict[str, list[str]] | None = None

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._tokens = self._index.normalizer.tokens(self.text)
        return self._tokens

    def has(self, words_: Phrase) -> bool:
        """Does the text contain this keyword or phrase as whole words?"""
        if self._set is None:
            self._set = frozenset(self.tokens)
        if len(words_) == 1:
            return words_[0] in self._set
        if not self._set.issuperset(words_):
            return False
        return contains(self.tokens, words_, self._index.normalizer.window)

    @property
    def capabilities(self) -> dict[str, list[str]]:
        """Capability -> matched keywords, through the inverted index; capabilities asked for
        explicitly are included (with no keywords)."""
        if self._capabilities is None:
            found = self._index.match_words(self.tokens)
            for capability in self._explicit:
                found.setdefault(capability, [])
            self._capabilities = found
        return self._capabilities


_MISSING = object()


def context_holds(context: Mapping[str, Any], key: str, value: Any) -> bool:
    """The request's `context[key]` is `value`, as JSON compares them: `true` is not `1`."""
    actual = context.get(key, _MISSING)
    return actual is not _MISSING and actual == value \
        and isinstance(actual, bool) == isinstance(value, bool)


def _context_holds(expected: tuple[tuple[str, Any], ...], context: Mapping[str, Any]) -> bool:
    return all(context_holds(context, key, value) for key, value in expected)


def rule_matches(rule: CompiledRule, request: RouteRequest, text: TextView) -> list[str] | None:
    """The keywords the rule matched (possibly none) when every condition holds, else None."""
    if rule.tools is not None and request.tool not in rule.tools:
        return None
    if rule.sources is not None and request.sender not in rule.sources:
        return None
    if rule.priority_range is not None:
        low, high = rule.priority_range
        if not low <= request.priority <= high:
            return None
    if rule.context and not _context_holds(rule.context, request.context):
        return None
    matched = [rule.spelling[p] for p in rule.all_keywords]
    if not all(text.has(p) for p in rule.all_keywords):
        return None
    if rule.any_keywords:
        hits = [rule.spelling[p] for p in rule.any_keywords if text.has(p)]
        if not hits:
            return None
        matched.extend(hits)
    if rule.capabilities:
        signalled = text.capabilities
        if not all(c in signalled for c in rule.capabilities):
            return None
        for capability in rule.capabilities:
            matched.extend(k for k in signalled[capability] if k not in matched)
    return matched
