"""The immutable, self-contained result of loading a config set, and its compile step.

A `Snapshot` is what the runtime serves from: the linked config plus structures compiled for
fast routing. It never changes after it is built; a reload builds a new one and swaps it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType

from engine.config.models import AgentSpec, ConfigSet, RuleSpec
from engine.issues import Issue
from engine.routing.compiled import RouteTables, compile_tables
from engine.routing.examples import ExampleIndex, build_example_index
from engine.routing.index import KeywordIndex, build_keyword_index
from engine.text.normalize import normalizer_for


class LazyExamples:
    """A set's examples index, built on first use and then kept: fitting its model is the
    slow part of a compile (seconds for 10,000 examples), which `handoff check` never needs.
    A runtime builds it with the rest of a load (`Snapshot.warm`), off its event loop."""

    __slots__ = ("_build", "_built", "_index", "_lock")

    def __init__(self, build: Callable[[], ExampleIndex | None] | None = None) -> None:
        self._build = build
        self._built = build is None
        self._index: ExampleIndex | None = None
        self._lock = threading.Lock()

    def get(self) -> ExampleIndex | None:
        if not self._built:
            with self._lock:
                if not self._built and self._build is not None:
                    self._index = self._build()
                    self._built, self._build = True, None
        return self._index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LazyExamples) and self.get() == other.get()

    def __hash__(self) -> int:
        return hash(self.get())


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A loaded config set. `version` is a hash of the content of every file it read.

    It implements seed 002's `HandoffProvider` protocol (`get_handoff_target`,
    `handoff_map`, `is_handoff_tool`). `tables` holds the routing tables compiled once for
    `engine.routing.Router`; build snapshots with `compile_snapshot`, which fills it.
    """

    config: ConfigSet
    version: str
    root: str
    trigger_map: Mapping[str, str]
    rules: tuple[RuleSpec, ...]
    keyword_index: KeywordIndex
    warnings: tuple[Issue, ...] = ()
    tables: RouteTables | None = None
    examples: LazyExamples = field(default_factory=LazyExamples)

    @property
    def name(self) -> str:
        """The set's `engine.name`."""
        return self.config.engine.name

    @property
    def example_index(self) -> ExampleIndex | None:
        """The compiled examples (None when the set declares none), built on first use."""
        return self.examples.get()

    def warm(self) -> Snapshot:
        """Build what is otherwise built on first use (the examples index), now; returns self."""
        self.examples.get()
        return self

    @property
    def agents(self) -> Mapping[str, AgentSpec]:
        return self.config.agents

    @property
    def handoff_map(self) -> Mapping[str, str]:
        """Handoff tool name -> agent name (seed 002 `build_handoff_map`)."""
        return self.trigger_map

    def get_handoff_target(self, tool_name: str) -> str | None:
        """The agent a handoff tool names, or None for a tool that is not a handoff."""
        return self.trigger_map.get(tool_name)

    def is_handoff_tool(self, tool_name: str) -> bool:
        return tool_name in self.trigger_map


def build_handoff_map(agents: Mapping[str, AgentSpec]) -> dict[str, str]:
    """Trigger -> agent name for every agent that declares a trigger (seed 002).

    Unlike the seed, duplicates never reach here: the link stage rejects them.
    """
    return {
        agent.handoff.trigger: agent.name
        for agent in agents.values()
        if agent.handoff.trigger is not None
    }


def compile_snapshot(
    config: ConfigSet,
    *,
    version: str,
    root: str,
    warnings: tuple[Issue, ...] = (),
    previous: Snapshot | None = None,
) -> Snapshot:
    """Compile a linked config: trigger map, rules in evaluation order (priority desc, then
    declaration order), the inverted keyword index, the examples index and the router's
    policy tables, all over one normalization pipeline. Parts equal to those of `previous`
    (the last build of the same set) are shared with it."""
    tables = compile_tables(
        config,
        previous=previous.tables if previous else None,
        previous_config=previous.config if previous else None,
    )
    normalizer = normalizer_for(config.engine.normalization)
    agents = tuple(config.agents.values())
    return Snapshot(
        config=config,
        version=version,
        root=root,
        trigger_map=MappingProxyType(build_handoff_map(config.agents)),
        rules=tuple(rule.spec for rule in tables.rules),
        keyword_index=build_keyword_index(agents, config.capabilities, normalizer=normalizer),
        warnings=warnings,
        tables=tables,
        examples=LazyExamples(partial(
            build_example_index, agents, config.capabilities, normalizer=normalizer,
            settings=config.engine.examples)),
    )
