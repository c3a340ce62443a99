"""The inverted keyword index built at compile time: word -> capabilities -> agents.

Matching is on whole normalized words (never substrings: "card" never matches "cardiology");
a keyword may be a phrase of several words, matched in order or, with a phrase window, in any
order close together. Building is pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.config.models import AgentSpec, CapabilitySpec
from engine.routing.ranking import Ranking
from engine.text.normalize import Normalizer, near, normalizer_for

Phrase = tuple[str, ...]


Entry = tuple[Phrase, str, tuple[str, ...]]
"""A keyword as (its words, its text, the capabilities it signals)."""


@dataclass(frozen=True, slots=True)
class KeywordIndex:
    """Keywords of the capability vocabulary, inverted for lookups in O(words in the text).

    `entries` maps the first word of every keyword (one word or a phrase) to its entries.
    `masks` holds, per capability, the positions (declaration order) of the agents that
    declare it as the set bits of one int, which ranks agents in a few mask operations however
    many share a capability; `agent_names[i]` is the name of position `i`. Disabled agents
    are indexed too: policy drops them later.
    """

    entries: Mapping[str, tuple[Entry, ...]]
    masks: Mapping[str, int]
    agent_names: tuple[str, ...]
    normalizer: Normalizer
    names_only: frozenset[str] = frozenset()
    """Spellings that only capability names produce (no keyword or synonym says them)."""

    def match_words(self, tokens: Sequence[str]) -> dict[str, list[str]]:
        """Capabilities signalled by already-tokenized text, each with its matched keywords
        in the order they first appear."""
        found: dict[str, list[str]] = {}
        get = self.entries.get
        window = self.normalizer.window
        for position, token in enumerate(tokens):
            entries = get(token)
            if entries is None:
                continue
            for words_, keyword, capabilities in entries:
                size = len(words_)
                if size > 1 and (
                    not near(tokens, position, words_, window) if window
                    else tuple(tokens[position : position + size]) != words_
                ):
                    continue
                for capability in capabilities:
                    hits = found.get(capability)
                    if hits is None:
                        found[capability] = [keyword]
                    elif keyword not in hits:
                        hits.append(keyword)
        return found

    def match(self, text: str) -> dict[str, list[str]]:
        """Capabilities signalled by `text`, each with the keywords that matched it."""
        return self.match_words(self.normalizer.tokens(text))

    def own_keywords(self, matched: Mapping[str, list[str]], position: int) -> list[str]:
        """The declared keywords and synonyms in `matched` (capability -> keywords) that
        signal a capability of the agent at `position`; bare capability names do not count."""
        found: list[str] = []
        for capability, keywords in matched.items():
            if self.masks.get(capability, 0) >> position & 1:
                found += [k for k in keywords if k not in self.names_only and k not in found]
        return found

    def mask_of(self, agents: Iterable[str]) -> int:
        """The agents named (by name) as a mask like `masks`' (for checks, not routing)."""
        names = self.agent_names
        return sum(1 << names.index(agent) for agent in set(agents) if agent in names)

    def ranking(self, capabilities: Iterable[str]) -> Ranking:
        """The agents that declare any of the given capabilities, those that declare the most
        first (declaration order within a score)."""
        masks = self.masks
        return Ranking(masks.get(name, 0) for name in capabilities)


def _keyword_phrases(
    capabilities: Mapping[str, CapabilitySpec], normalizer: Normalizer
) -> tuple[dict[Phrase, tuple[str, list[str]]], set[Phrase]]:
    """Every keyword as its words -> (its first spelling, the capabilities it signals), and
    the phrases that some keyword or synonym says (not only a capability's name). Keywords
    and synonyms come before the capability's name, so when stemming makes them one (the
    name `cards`, the keyword `card`) the spelling shown is the keyword's."""
    phrases: dict[Phrase, tuple[str, list[str]]] = {}
    declared: set[Phrase] = set()
    for capability in capabilities.values():
        said = (*capability.keywords, *capability.synonyms)
        for keyword in (*said, capability.name):
            words_ = normalizer.phrase(keyword)
            if not words_:
                continue
            if keyword in said:
                declared.add(words_)
            _spelling, names = phrases.setdefault(words_, (keyword.strip(), []))
            if capability.name not in names:
                names.append(capability.name)
    return phrases, declared


def build_keyword_index(
    agents: Iterable[AgentSpec],
    capabilities: Mapping[str, CapabilitySpec],
    *,
    normalizer: Normalizer | None = None,
) -> KeywordIndex:
    """Invert the vocabulary (keyword -> capabilities) and the agents (capability -> agents).

    A phrase is filed under its first word or, with a phrase window (any order), under its
    longest word: every word must be there, so one is enough to find it, and the longest is
    the least likely to be a common word that would make every request check the phrase."""
    normalizer = normalizer or normalizer_for()
    entries: dict[str, list[Entry]] = {}
    phrases, declared = _keyword_phrases(capabilities, normalizer)
    for words_, (spelling, names) in phrases.items():
        key = max(words_, key=len) if normalizer.window else words_[0]
        entries.setdefault(key, []).append((words_, spelling, tuple(names)))
    names_in_order: list[str] = []
    by_capability: dict[str, list[int]] = {}
    for position, agent in enumerate(agents):
        names_in_order.append(agent.name)
        for capability_name in agent.capabilities:
            holders = by_capability.get(capability_name)
            if holders is None:
                by_capability[capability_name] = [position]
            elif holders[-1] != position:  # an agent listing a capability twice counts once
                holders.append(position)
    return KeywordIndex(
        entries=MappingProxyType({k: tuple(v) for k, v in entries.items()}),
        masks=MappingProxyType({k: _mask(v) for k, v in by_capability.items()}),
        agent_names=tuple(names_in_order),
        normalizer=normalizer,
        names_only=frozenset(spelling for words_, (spelling, _caps) in phrases.items()
                             if words_ not in declared),
    )


def _mask(positions: list[int]) -> int:
    """An int whose set bits are `positions` (built in one pass: shifting a growing int once
    per position would cost the square of the agents)."""
    bits = bytearray(positions[-1] // 8 + 1)
    for position in positions:
        bits[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(bits, "little")
