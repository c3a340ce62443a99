"""The inverted keyword index built at compile time: word -> capabilities -> agents.

Matching is on whole words (never substrings), case-insensitive; a keyword may be a phrase of
several words. Building the index is pure and deterministic; it never reads files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.config.models import AgentSpec, CapabilitySpec

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-cased whole words of `text` ("Card's lost!" -> ["card's", "lost"])."""
    return [match.group(0).lower() for match in _WORD.finditer(text)]


@dataclass(frozen=True, slots=True)
class KeywordIndex:
    """`phrases` maps a keyword (a tuple of words) to the capabilities it signals;
    `agents_by_capability` lists enabled and disabled agents alike, in declaration order."""

    phrases: Mapping[tuple[str, ...], tuple[str, ...]]
    agents_by_capability: Mapping[str, tuple[str, ...]]
    longest_phrase: int

    def match(self, text: str) -> dict[str, list[str]]:
        """Capabilities signalled by `text`, each with the keywords that matched it."""
        tokens = words(text)
        found: dict[str, list[str]] = {}
        for start in range(len(tokens)):
            for size in range(1, min(self.longest_phrase, len(tokens) - start) + 1):
                phrase = tuple(tokens[start : start + size])
                for capability in self.phrases.get(phrase, ()):
                    hits = found.setdefault(capability, [])
                    keyword = " ".join(phrase)
                    if keyword not in hits:
                        hits.append(keyword)
        return found


def build_keyword_index(
    agents: Iterable[AgentSpec], capabilities: Mapping[str, CapabilitySpec]
) -> KeywordIndex:
    phrases: dict[tuple[str, ...], list[str]] = {}
    for capability in capabilities.values():
        for keyword in (capability.name, *capability.keywords, *capability.synonyms):
            phrase = tuple(words(keyword))
            if phrase and capability.name not in phrases.setdefault(phrase, []):
                phrases[phrase].append(capability.name)
    by_capability: dict[str, list[str]] = {}
    for agent in agents:
        for capability_name in agent.capabilities:
            by_capability.setdefault(capability_name, []).append(agent.name)
    return KeywordIndex(
        phrases=MappingProxyType({k: tuple(v) for k, v in phrases.items()}),
        agents_by_capability=MappingProxyType({k: tuple(v) for k, v in by_capability.items()}),
        longest_phrase=max((len(p) for p in phrases), default=1),
    )
