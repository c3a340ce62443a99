"""Vocabulary warnings `handoff check` adds on a loaded set: a keyword whose own words route
to another agent (`shared-keyword`), and an example the keyword layer always answers first,
so the examples layer never sees it (`unreachable-example`).

Reads the compiled keyword index and the handoff policy; routes nothing through the router
and changes nothing. Run by `check` (not by every reload: it normalizes every example).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engine.config.build import Locator
from engine.config.positions import Document, PathKey
from engine.config.topology import handoff_edges
from engine.issues import Issue
from engine.routing.index import KeywordIndex
from engine.routing.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class _Said:
    """A keyword or example as declared: its text, the agents it is meant for, and where."""

    text: str
    agents: frozenset[str]
    document: Document
    path: PathKey


def _holders(snapshot: Snapshot) -> dict[str, frozenset[str]]:
    """Capability -> the agents that declare it."""
    found: dict[str, set[str]] = {}
    for agent in snapshot.config.agents.values():
        for name in agent.capabilities:
            found.setdefault(name, set()).add(agent.name)
    return {name: frozenset(agents) for name, agents in found.items()}


def _keywords(
    snapshot: Snapshot, locator: Locator, holders: dict[str, frozenset[str]]
) -> Iterator[_Said]:
    for name, capability in snapshot.config.capabilities.items():
        document = locator.capabilities.get(name)
        if document is None or not holders.get(name):
            continue
        for field in ("keywords", "synonyms"):
            for n, text in enumerate(getattr(capability, field)):
                yield _Said(text, holders[name], document, ("capabilities", name, field, n))


def _examples(
    snapshot: Snapshot, locator: Locator, holders: dict[str, frozenset[str]]
) -> Iterator[_Said]:
    for agent in snapshot.config.agents.values():
        document = locator.agents[agent.name]
        for n, text in enumerate(agent.examples):
            yield _Said(text, frozenset({agent.name}), document, ("examples", n))
    for name, capability in snapshot.config.capabilities.items():
        declared = locator.capabilities.get(name)
        if declared is None or not holders.get(name):
            continue
        for n, text in enumerate(capability.examples):
            yield _Said(text, holders[name], declared, ("capabilities", name, "examples", n))


def _words_for(index: KeywordIndex, matched: dict[str, list[str]], names: list[str]) -> str:
    """The matched keywords (or capability names) that signal the agents `names`, quoted."""
    wanted = index.mask_of(names)
    words: list[str] = []
    for capability, keywords in matched.items():
        if index.masks.get(capability, 0) & wanted:
            words += [word for word in keywords if word not in words]
    return ", ".join(repr(word) for word in words)


def _senders(snapshot: Snapshot) -> dict[str, set[str]]:
    """Target -> the agents that may hand off to it under policy."""
    into: dict[str, set[str]] = {}
    for sender, targets in handoff_edges(snapshot.config).items():
        for target in targets:
            into.setdefault(target, set()).add(sender)
    return into


def _taken(
    index: KeywordIndex, into: dict[str, set[str]], said: _Said
) -> tuple[list[str], dict[str, list[str]]] | None:
    """The agents the keyword layer gives `said`'s text to instead of its own, from every
    sender that may hand off to one of its agents; None when some sender keeps it (or no
    keyword matches, or no one can hand off to its agents).

    One walk down the ranking: each sender's pick is the first ranked agent it may hand off
    to, so an agent settles every sender not yet settled that may reach it."""
    unsettled = set().union(*(into.get(agent, ()) for agent in said.agents))
    matched = index.match(said.text) if unsettled else None
    if not matched:
        return None
    winners = []
    for position in index.ranking(matched):
        name = index.agent_names[position]
        settled = unsettled & into.get(name, set())
        if not settled:
            continue
        if name in said.agents:
            return None
        winners.append(name)
        unsettled -= settled
        if not unsettled:
            return sorted(winners), matched
    return None  # a sender the keyword layer finds no one for: the examples layer is asked


def shared_keywords(
    snapshot: Snapshot, locator: Locator, into: dict[str, set[str]],
    holders: dict[str, frozenset[str]],
) -> list[Issue]:
    """A keyword whose words, said alone, the keyword layer gives to another agent, from every
    sender that may hand off to its own: a word of it also signals that agent, which wins."""
    index = snapshot.keyword_index
    issues = []
    for said in _keywords(snapshot, locator, holders):
        found = _taken(index, into, said)
        if found is None:
            continue
        taken, matched = found
        message = (
            f"keyword {said.text!r} of {', '.join(sorted(said.agents))} routes to "
            f"{', '.join(taken)}: a request saying only it signals {', '.join(taken)} too "
            f"(through {_words_for(index, matched, taken)}), which wins (a higher score, or "
            "declared first); keep each word under one agent's capabilities, or make this "
            "one a longer phrase"
        )
        issues.append(locator.at(said.document, said.path, "shared-keyword", message))
    return issues


def _shared_words(
    index: KeywordIndex, matched: dict[str, list[str]], own: frozenset[str], taken: list[str]
) -> list[str]:
    """The matched keywords that signal both a capability of the `own` agents and one of the
    `taken` agents: the words two agents share."""
    def said_for(agents: set[str]) -> set[str]:
        wanted = index.mask_of(agents)
        return {word for capability, words in matched.items()
                if index.masks.get(capability, 0) & wanted for word in words}

    both = said_for(set(own)) & said_for(set(taken))
    return [word for words in matched.values() for word in words if word in both]


def unreachable_examples(
    snapshot: Snapshot, locator: Locator, into: dict[str, set[str]],
    holders: dict[str, frozenset[str]],
) -> list[Issue]:
    """Examples that a keyword their agent shares with another agent sends to that agent,
    from every sender able to hand off to theirs: the examples layer, asked only when
    keywords decide nothing, never routes them. (An example that only another agent's own
    keywords take still teaches the examples model, so it is no warning.)"""
    index = snapshot.keyword_index
    issues = []
    for said in _examples(snapshot, locator, holders):
        found = _taken(index, into, said)
        shared = _shared_words(index, found[1], said.agents, found[0]) if found else []
        if not found or not shared:
            continue
        words = ", ".join(repr(word) for word in dict.fromkeys(shared))
        message = (
            f"example {said.text!r} of {', '.join(sorted(said.agents))} never reaches the "
            f"examples layer: {words}, a keyword it shares with {', '.join(found[0])}, sends "
            f"it to {', '.join(found[0])} first, whoever hands it off; keep the keyword under "
            "one agent, or drop the example"
        )
        issues.append(locator.at(said.document, said.path, "unreachable-example", message))
    return issues


def vocabulary_warnings(snapshot: Snapshot, locator: Locator) -> list[Issue]:
    """Every vocabulary warning of a loaded set."""
    into, holders = _senders(snapshot), _holders(snapshot)
    return (shared_keywords(snapshot, locator, into, holders)
            + unreachable_examples(snapshot, locator, into, holders))
