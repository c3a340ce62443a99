"""The inverted keyword index built at compile time: word -> capabilities -> agents.

Matching is on whole words (never substrings: "card" never matches "cardiology"), case-
insensitive; a keyword may be a phrase of several words. Building is pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from engine.config.models import AgentSpec, CapabilitySpec
from engine.routing.text import phrase, words

Phrase = tuple[str, ...]


Entry = tuple[Phrase, str, tuple[str, ...]]
"""A keyword as (its words, its text, the capabilities it signals)."""


@dataclass(frozen=True, slots=True)
class KeywordIndex:
    """Keywords of the capability vocabulary, inverted for lookups in O(words in the text).

    `entries` maps the first word of every keyword (one word or a phrase) to its entries.
    `agents_by_capability` holds agent positions (declaration order) so scoring works on
    small ints; `agent_names[i]` is the name of position `i`. Disabled agents are indexed
    too: policy drops them later.
    """

    entries: Mapping[str, tuple[Entry, ...]]
    agents_by_capability: Mapping[str, tuple[int, ...]]
    agent_names: tuple[str, ...]

    def match_words(self, tokens: Sequence[str]) -> dict[str, list[str]]:
        """Capabilities signalled by already-tokenized text, each with its matched keywords
        in the order they first appear."""
        found: dict[str, list[str]] = {}
        get = self.entries.get
        for position, token in enumerate(tokens):
            entries = get(token)
            if entries is None:
                continue
            for words_, keyword, capabilities in entries:
                size = len(words_)
                if size > 1 and tuple(tokens[position : position + size]) != words_:
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
        return self.match_words(words(text))

    def score(self, capabilities: Iterable[str]) -> dict[int, int]:
        """Agent position -> number of the given capabilities that agent declares."""
        scores: dict[int, int] = {}
        get = scores.get
        for capability in capabilities:
            for position in self.agents_by_capability.get(capability, ()):
                scores[position] = get(position, 0) + 1
        return scores


def _keyword_phrases(
    capabilities: Mapping[str, CapabilitySpec],
) -> dict[Phrase, tuple[str, list[str]]]:
    """Every keyword as its words -> (its first spelling, the capabilities it signals)."""
    phrases: dict[Phrase, tuple[str, list[str]]] = {}
    for capability in capabilities.values():
        for keyword in (capability.name, *capability.keywords, *capability.synonyms):
            words_ = phrase(keyword)
            if not words_:
                continue
            _spelling, names = phrases.setdefault(words_, (keyword.strip(), []))
            if capability.name not in names:
                names.append(capability.name)
    return phrases


def build_keyword_index(
    agents: Iterable[AgentSpec], capabilities: Mapping[str, CapabilitySpec]
) -> KeywordIndex:
    """Invert the vocabulary (keyword -> capabilities) and the agents (capability -> agents)."""
    entries: dict[str, list[Entry]] = {}
    for words_, (spelling, names) in _keyword_phrases(capabilities).items():
        entries.setdefault(words_[0], []).append((words_, spelling, tuple(names)))
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
        agents_by_capability=MappingProxyType({k: tuple(v) for k, v in by_capability.items()}),
        agent_names=tuple(names_in_order),
    )
