"""Choosing example utterances from a labelled corpus: every cleaned row, up to a cap per agent.

Each chosen row goes to the example group of its agent that scores it highest (a capability
only that agent declares, or the agent itself). Pure over models; writing YAML is elsewhere.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.config.models import ConfigSet
from engine.config.read import DEFAULT_MAX_BYTES
from engine.evaluation.corpus import Row
from engine.routing.snapshot import Snapshot, compile_snapshot

Place = tuple[str, str]
"""Where an example goes: (agent, capability), capability "" for the agent's own list."""


@dataclass(slots=True)
class Learned:
    """Examples chosen per place, in the order chosen."""

    added: dict[Place, list[str]] = field(default_factory=dict)
    over_budget: int = 0
    """Rows left out because the file their examples go to would grow past `FILE_BUDGET`."""

    def count(self, agent: str) -> int:
        return sum(len(texts) for (owner, _), texts in self.added.items() if owner == agent)


def with_examples(config: ConfigSet, added: Mapping[Place, Sequence[str]]) -> ConfigSet:
    """A copy of `config` with the examples appended where they were placed."""
    agents, capabilities = dict(config.agents), dict(config.capabilities)
    for (agent, capability), texts in added.items():
        if capability:
            spec = capabilities[capability]
            capabilities[capability] = spec.model_copy(
                update={"examples": (*spec.examples, *texts)})
        else:
            spec_ = agents[agent]
            agents[agent] = spec_.model_copy(update={"examples": (*spec_.examples, *texts)})
    return config.model_copy(update={"agents": agents, "capabilities": capabilities})


def compile_with(snapshot: Snapshot, added: Mapping[Place, Sequence[str]]) -> Snapshot:
    config = with_examples(snapshot.config, added)
    return compile_snapshot(config, version=snapshot.version, root=snapshot.root)


def owned_capabilities(config: ConfigSet) -> dict[str, list[str]]:
    """Agent -> the capabilities only it declares (where its learned examples may go)."""
    holders: dict[str, list[str]] = {}
    for agent in config.agents.values():
        for name in agent.capabilities:
            holders.setdefault(name, []).append(agent.name)
    owned: dict[str, list[str]] = {}
    for name, agents in holders.items():
        if len(agents) == 1 and name in config.capabilities:
            owned.setdefault(agents[0], []).append(name)
    return owned


def place(snapshot: Snapshot, row: Row, owned: Mapping[str, list[str]]) -> Place:
    """The group of the row's agent whose examples are closest to the row."""
    index = snapshot.example_index
    choices = owned.get(row.agent, [])
    if index is None or not choices:
        return (row.agent, "")
    totals = index.group_scores(index.normalizer.tokens(row.text), row.text)
    agent = index.agent_names.index(row.agent)
    best, best_score = "", -float("inf")
    for group, value in enumerate(totals):
        name = index.group_names[group]
        if index.group_agents[group] == agent and name in choices and value > best_score:
            best, best_score = name, value
    return (row.agent, best or choices[0])


def choose_examples(
    snapshot: Snapshot, rows: Sequence[Row], *, cap: int, total: int = 12_000,
    places: dict[tuple[str, str], Place] | None = None,
) -> Learned:
    """Every row (cleaned: see `engine.learning.clean`) becomes an example of its agent, at
    most `cap` per agent and `total` in all (an equal share each, an agent with fewer rows
    keeping them all): a model fitted on the examples learns from all of them, and the cost
    of fitting stays bounded. Over a cap, the rows kept are the first by a hash of their text
    (a stable, even sample). `places` remembers where each (text, agent) went, for calls on
    sets with the same examples."""
    learned = Learned()
    owned = owned_capabilities(snapshot.config)
    room: dict[str, int] = {}
    by_agent: dict[str, list[Row]] = {}
    for row in rows:
        by_agent.setdefault(row.agent, []).append(row)
    share = _share({agent: min(len(found), cap) for agent, found in by_agent.items()}, total)
    for agent in sorted(by_agent):
        chosen = sorted(by_agent[agent], key=_spread)[:min(cap, share)]
        chosen.sort(key=lambda row: row.line)
        for row in chosen:
            where = places.get((row.text, agent)) if places is not None else None
            if where is None:
                where = place(snapshot, row, owned)
                if places is not None:
                    places[row.text, agent] = where
            file = _file_of(snapshot.config, where)
            left = room.get(file)
            if left is None:
                left = FILE_BUDGET - _size(file)
            cost = len(row.text.encode("utf-8")) + EXAMPLE_OVERHEAD
            if cost > left:
                learned.over_budget += 1
                continue
            room[file] = left - cost
            learned.added.setdefault(where, []).append(row.text)
    return learned


FILE_BUDGET = DEFAULT_MAX_BYTES * 9 // 10
"""How large learning lets a file grow: a learned set always loads under the size cap."""
EXAMPLE_OVERHEAD = 16
"""Bytes an example takes in YAML beyond its text: indent, dash, quotes, a escaped character."""


def _file_of(config: ConfigSet, where: Place) -> str:
    agent, capability = where
    source = config.capabilities[capability].source if capability else config.agents[agent].source
    return source.file if source is not None else ""


def _size(file: str) -> int:
    try:
        return os.path.getsize(file)
    except OSError:  # a set built in memory
        return 0


def _share(counts: Mapping[str, int], total: int) -> int:
    """The largest per-agent share such that taking up to it from each agent stays within
    `total` rows."""
    if sum(counts.values()) <= total:
        return max(counts.values(), default=0)
    low, high = 0, max(counts.values())
    while low < high:
        middle = (low + high + 1) // 2
        if sum(min(count, middle) for count in counts.values()) <= total:
            low = middle
        else:
            high = middle - 1
    return low


def _spread(row: Row) -> int:
    return zlib.crc32(row.text.encode("utf-8"))
