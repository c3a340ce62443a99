"""Choosing example utterances from a labelled corpus: the rows the config gets wrong, added in
passes until the corpus is covered or each agent's cap is reached.

Each chosen row goes to the example group of its agent it is closest to (a capability only
that agent declares, or the agent itself). Pure over models; writing YAML is elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.config.models import ConfigSet
from engine.config.snapshot import Snapshot, compile_snapshot
from engine.evaluation.corpus import Row
from engine.routing.decision import RouteRequest
from engine.routing.router import Router

Place = tuple[str, str]
"""Where an example goes: (agent, capability), capability "" for the agent's own list."""
PASSES = 4


@dataclass(slots=True)
class Learned:
    """Examples chosen per place, in the order chosen; `conflicts` are utterances the corpus
    labels with several agents (left out)."""

    added: dict[Place, list[str]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)

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
    tokens = index.normalizer.tokens(row.text)
    totals, _ = index.group_scores(tokens)
    agent = index.agent_names.index(row.agent)
    best, best_score = "", 0.0
    pairs = enumerate(totals) if isinstance(totals, list) else totals.items()
    for group, value in pairs:
        name = index.group_names[group]
        if index.group_agents[group] == agent and name in choices and value > best_score:
            best, best_score = name, value
    return (row.agent, best or choices[0])


def distinct(rows: Sequence[Row], snapshot: Snapshot) -> tuple[list[Row], list[str]]:
    """One row per normalized utterance; utterances labelled with two agents are dropped."""
    normalize = snapshot.keyword_index.normalizer.tokens
    seen: dict[tuple[str, ...], Row] = {}
    conflicted: dict[tuple[str, ...], str] = {}
    for row in rows:
        key = tuple(normalize(row.text))
        first = seen.setdefault(key, row)
        if first.agent != row.agent:
            conflicted[key] = first.text
    kept = [row for key, row in seen.items() if key not in conflicted]
    return kept, sorted(conflicted.values())


def choose_examples(snapshot: Snapshot, rows: Sequence[Row], *, cap: int) -> Learned:
    """Rows the config misroutes become examples, pass after pass, at most `cap` per agent."""
    learned = Learned()
    pool, learned.conflicts = distinct(rows, snapshot)
    owned = owned_capabilities(snapshot.config)
    current = snapshot
    taken: set[str] = set()
    for _ in range(PASSES):
        router, added = Router(current), 0
        for row in pool:
            if row.text in taken or learned.count(row.agent) >= cap:
                continue
            decision = router.route(RouteRequest(row.sender, row.text, context=row.context))
            if (decision.target or row.sender) == row.agent:
                continue
            learned.added.setdefault(place(current, row, owned), []).append(row.text)
            taken.add(row.text)
            added += 1
        if not added:
            break
        current = compile_with(snapshot, learned.added)
    return learned
