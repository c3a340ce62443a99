"""Everything the router reads for one config, compiled once into the Snapshot.

Per-agent policy, rules in evaluation order with their dispatch index, the fallback and the
loop-guard limits. Pure and deterministic; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.config.models import ConfigSet, ExamplesSpec
from engine.routing.dispatch import RuleDispatch, build_dispatch
from engine.routing.tables import AgentPolicy, CompiledRule
from engine.text.normalize import normalizer_for


@dataclass(frozen=True, slots=True)
class RouteTables:
    """Everything the router reads, precomputed: agents by name, rules in evaluation order
    (priority desc, then declaration order) and the index that picks the rules worth
    evaluating for a request, the fallback and the loop-guard limits."""

    agents: Mapping[str, AgentPolicy]
    rules: tuple[CompiledRule, ...]
    dispatch: RuleDispatch
    rule_tools: frozenset[str]
    fallback: str | None
    max_hops: int
    max_bounces: int
    multiple_handoffs: str
    examples: ExamplesSpec


def compile_tables(
    config: ConfigSet,
    *,
    previous: RouteTables | None = None,
    previous_config: ConfigSet | None = None,
) -> RouteTables:
    """The router's tables for `config`. An agent policy equal to one in `previous` (the
    tables of the last build) is that very object: a reload of 10,000 agents then leaves the
    old tables little to free, and freeing happens on the loop when it swaps. With the config
    `previous` was compiled from, an agent model or a list of rule models that is the very
    same object as there is not compiled again."""
    before = previous.agents if previous is not None else {}
    specs = previous_config.agents if previous is not None and previous_config else {}
    agents = {}
    for position, agent in enumerate(config.agents.values()):
        old = before.get(agent.name)
        if old is not None and old.position == position and specs.get(agent.name) is agent:
            agents[agent.name] = old
            continue
        policy = AgentPolicy.of(agent, position)
        agents[agent.name] = old if old == policy else policy
    policies = config.engine.policies
    rules, dispatch, tools = _rules(config, previous, previous_config)
    return RouteTables(
        agents=MappingProxyType(agents),
        rules=rules,
        dispatch=dispatch,
        rule_tools=tools,
        fallback=config.routing.fallback,
        max_hops=policies.max_hops,
        max_bounces=policies.max_bounces,
        multiple_handoffs=policies.multiple_handoffs,
        examples=config.engine.examples,
    )


def _rules(
    config: ConfigSet, previous: RouteTables | None, previous_config: ConfigSet | None
) -> tuple[tuple[CompiledRule, ...], RuleDispatch, frozenset[str]]:
    """Rules in evaluation order, their dispatch index and the tools they name; those of
    `previous` when the rule models and the normalization are the very same."""
    if (
        previous is not None
        and previous_config is not None
        and previous_config.engine.normalization == config.engine.normalization
        and len(previous_config.routing.rules) == len(config.routing.rules)
        and all(
            a is b for a, b in zip(previous_config.routing.rules, config.routing.rules, strict=True)
        )
    ):
        return previous.rules, previous.dispatch, previous.rule_tools
    normalizer = normalizer_for(config.engine.normalization)
    compiled = [
        CompiledRule.of(rule, n, normalizer=normalizer)
        for n, rule in enumerate(config.routing.rules)
    ]
    compiled.sort(key=lambda rule: (-rule.priority, rule.position))
    tools = frozenset(tool for rule in compiled for tool in (rule.tools or ()))
    return tuple(compiled), build_dispatch(compiled), tools
