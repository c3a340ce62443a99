"""Mining discriminative keywords per agent from a labelled corpus: weighted log-odds with an
informative Dirichlet prior (the corpus itself), kept only when precise on the corpus.

Counts words and word pairs of normalized text, as the keyword layer sees them. Pure.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from engine.evaluation.corpus import Row
from engine.text.normalize import Normalizer

PRIOR = 500.0
"""Total weight of the prior (pseudo-counts spread like the whole corpus)."""
COMMON = 0.05
"""A word in more than this share of an agent's rows is common in its requests."""


@dataclass(frozen=True, slots=True)
class Keyword:
    """A mined keyword: its text (as in the corpus), its agent, z-score, precision, support."""

    text: str
    agent: str
    z: float
    precision: float
    support: int


def _terms(tokens: Sequence[str]) -> set[tuple[str, ...]]:
    return {(t,) for t in tokens} | set(pairwise(tokens))


def spellings(rows: Sequence[Row], normalizer: Normalizer) -> dict[tuple[str, ...], str]:
    """The most frequent surface spelling of each term (lower-cased words, as typed), among
    the spellings of the fewest words: "don't" for (do, not), not "er don't"."""
    seen: dict[tuple[str, ...], Counter[str]] = {}
    for row in rows:
        words = row.text.lower().split()
        for size in (1, 2):
            for start in range(len(words) - size + 1):
                surface = " ".join(w.strip(".,!?;:\"()") for w in words[start:start + size])
                key = tuple(normalizer.tokens(surface))
                if 0 < len(key) <= 2 and size <= len(key):
                    seen.setdefault(key, Counter())[surface] += 1
    return {key: min(counts.items(), key=lambda item: (len(item[0].split()), -item[1],
                                                       item[0]))[0]
            for key, counts in seen.items()}


def _common_words(documents: Sequence[tuple[str, set[tuple[str, ...]]]]) -> dict[str, set[str]]:
    """Agent -> the words common outside its rows: used by more than half of the agents
    ("at", "my", "card"), or in more than `COMMON` of another agent's rows ("do", "not" in
    everyday requests). A keyword made only of them would fire on other agents' requests,
    whatever share of this corpus says otherwise."""
    users: dict[str, set[str]] = {}
    rows: dict[str, Counter[str]] = {}
    for agent, terms in documents:
        counts = rows.setdefault(agent, Counter())
        for term in terms:
            if len(term) == 1:
                users.setdefault(term[0], set()).add(agent)
                counts[term[0]] += 1
    sizes = Counter(agent for agent, _ in documents)
    everyone = {word for word, who in users.items() if len(who) * 2 > len(sizes)}
    frequent = {agent: {word for word, n in counts.items() if n > COMMON * sizes[agent]}
                for agent, counts in rows.items()}
    return {agent: everyone.union(*(words for other, words in frequent.items()
                                    if other != agent))
            for agent in sizes}


def z_score(count: int, support: int, mine: int, total: int) -> float:
    """Weighted log-odds of a term in one agent's rows against the rest's, over its standard
    deviation: `count` of its `support` occurrences are the agent's, which has `mine` of the
    `total` term occurrences. The prior spreads `PRIOR` pseudo-counts like the corpus."""
    prior = PRIOR * support / total
    rest, others = support - count, total - mine
    delta = math.log((count + prior) / (mine + PRIOR - count - prior)) - math.log(
        (rest + prior) / (others + PRIOR - rest - prior))
    return delta / math.sqrt(1 / (count + prior) + 1 / (rest + prior))


@dataclass(frozen=True, slots=True)
class _Limits:
    known: set[tuple[str, ...]]
    common: dict[str, set[str]]
    min_support: int
    min_precision: float
    min_z: float


def _agent_keywords(
    agent: str, mine: Counter[tuple[str, ...]], total: Counter[tuple[str, ...]],
    spelled: dict[tuple[str, ...], str], limits: _Limits,
) -> list[Keyword]:
    all_count, n_mine = sum(total.values()), sum(mine.values())
    scored = []
    for term, count in mine.items():
        support = total[term]
        if support < limits.min_support or term in limits.known or term not in spelled:
            continue
        common = limits.common.get(agent, set())
        if all(word in common for word in term) or count < limits.min_precision * support:
            continue
        z = z_score(count, support, n_mine, all_count)
        if z >= limits.min_z:
            scored.append(Keyword(spelled[term], agent, z, count / support, support))
    return sorted(scored, key=lambda k: (-k.z, k.text))


def log_odds(
    rows: Sequence[Row],
    normalizer: Normalizer,
    *,
    agents: Sequence[str],
    known: set[tuple[str, ...]],
    per_agent: int = 10,
    min_support: int = 10,
    min_precision: float = 0.95,
    min_z: float = 3.0,
) -> list[Keyword]:
    """The most discriminative new terms of each agent (Monroe et al.'s weighted log-odds,
    agent against the rest), that appear in at least `min_support` rows, of which at least
    `min_precision` belong to the agent. Terms in `known` (already keywords) and terms made
    only of words most agents use are skipped."""
    documents = [(row.agent, _terms(normalizer.tokens(row.text))) for row in rows]
    limits = _Limits(known, _common_words(documents), min_support, min_precision, min_z)
    by_agent: dict[str, Counter[tuple[str, ...]]] = {agent: Counter() for agent in agents}
    total: Counter[tuple[str, ...]] = Counter()
    for agent, terms in documents:
        by_agent.setdefault(agent, Counter()).update(terms)
        total.update(terms)
    spelled = spellings(rows, normalizer)
    found: list[Keyword] = []
    for agent in agents:
        found += _agent_keywords(agent, by_agent[agent], total, spelled, limits)[:per_agent]
    return found
