"""Build stage: validated documents -> frozen typed models, each with its SourceRef.

Merges the documents of one set (agents, capabilities, rules in include order) and reports
names declared twice; the models deep-freeze pass-through data. No cross-reference checks
here: that is the link stage's job.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from engine.config.agent_runtime import fold_runtime_fields
from engine.config.codes import issue
from engine.config.models import (
    AgentSpec,
    CapabilitySpec,
    ConfigSet,
    EngineSpec,
    RoutingSpec,
    RuleSpec,
    SourceRef,
)
from engine.config.positions import Document, PathKey, json_path
from engine.config.sharing import shared_fields
from engine.issues import Issue


@dataclass(slots=True)
class Locator:
    """Where each named item of a set was declared, to locate link issues precisely."""

    engine: Document
    agents: dict[str, Document] = field(default_factory=dict)
    capabilities: dict[str, Document] = field(default_factory=dict)
    rules: dict[str, tuple[Document, int]] = field(default_factory=dict)
    fallback: Document | None = None

    def at(
        self, document: Document, path: PathKey, code: str, message: str, *, key: bool = False
    ) -> Issue:
        """An issue at `path` of `document` (at the key itself when `key` is true)."""
        position = document.locate(path, key=key)
        return issue(document.file, position, json_path(path), code, message)


def _ref(document: Document, path: PathKey = ()) -> SourceRef:
    line, col = document.locate(path)
    return SourceRef(file=document.file, line=line, col=col)


def _anyone(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


LEGACY_TRIGGER = "handoff_trigger"


def build_agent(document: Document) -> AgentSpec:
    data = dict(document.data)
    legacy = data.pop(LEGACY_TRIGGER, None)
    if legacy is not None:
        handoff = dict(data.get("handoff", {}))
        handoff.setdefault("trigger", legacy)
        data["handoff"] = handoff
    data["peers"] = _anyone(data.get("peers", []))
    accepts = dict(data.get("accepts", {}))
    if accepts.get("payload_schema") is True:  # accepts every payload, as no schema does
        del accepts["payload_schema"]
    if "from" in accepts:
        accepts["from"] = _anyone(accepts["from"])
    data["accepts"] = accepts
    fold_runtime_fields(data)
    agent = AgentSpec.model_validate({**data, "source": _ref(document)})
    return shared_fields(agent)


def build_rule(document: Document, index: int, data: dict[str, Any]) -> RuleSpec:
    rule = RuleSpec.model_validate({**data, "source": _ref(document, ("rules", index))})
    return shared_fields(rule)


@dataclass(slots=True)
class _Sets:
    locator: Locator
    issues: list[Issue] = field(default_factory=list)
    agents: dict[str, AgentSpec] = field(default_factory=dict)
    capabilities: dict[str, CapabilitySpec] = field(default_factory=dict)
    rules: list[RuleSpec] = field(default_factory=list)
    fallback: str | None = None

    def duplicate(
        self, document: Document, path: PathKey, code: str, what: str,
        first: tuple[Document, PathKey],
    ) -> None:
        """`what`, declared at `path` of `document`, was declared before at `first`."""
        earlier, at = first
        line, col = earlier.locate(at, key=True)
        message = f"{what} is already declared at {earlier.file}:{line}:{col}"
        self.issues.append(self.locator.at(document, path, code, message, key=True))


def _legacy_trigger(sets: _Sets, document: Document) -> None:
    """Warn about the legacy `handoff_trigger:` key; an error when it contradicts
    `handoff.trigger`."""
    legacy = document.data.get(LEGACY_TRIGGER) if isinstance(document.data, dict) else None
    if legacy is None:
        return
    current = dict(document.data.get("handoff", {})).get("trigger")
    if current is not None and current != legacy:
        message = (f"handoff_trigger {legacy!r} differs from handoff.trigger {current!r}; "
                   "keep only handoff.trigger")
        code = "conflicting-trigger"
    else:
        message = f"'handoff_trigger' is deprecated; write `handoff: {{trigger: {legacy}}}`"
        code = "deprecated-key"
    sets.issues.append(sets.locator.at(document, (LEGACY_TRIGGER,), code, message, key=True))


def _add_agents(sets: _Sets, members: Iterable[Built]) -> None:
    for document, built in members:
        _legacy_trigger(sets, document)
        agent = built or build_agent(document)
        if agent.name in sets.agents:
            first = (sets.locator.agents[agent.name], ("name",))
            sets.duplicate(document, ("name",), "duplicate-agent", f"agent {agent.name!r}", first)
            continue
        sets.agents[agent.name] = agent
        sets.locator.agents[agent.name] = document


def _add_capabilities(sets: _Sets, documents: Iterable[Document]) -> None:
    for document in documents:
        for name, body in document.data["capabilities"].items():
            where = ("capabilities", name)
            if name in sets.capabilities:
                what, first = f"capability {name!r}", (sets.locator.capabilities[name], where)
                sets.duplicate(document, where, "duplicate-capability", what, first)
                continue
            source = _ref(document, where)
            sets.capabilities[name] = shared_fields(CapabilitySpec.model_validate(
                {"name": name, **(body or {}), "source": source}
            ))
            sets.locator.capabilities[name] = document


class BuiltRules(NamedTuple):
    """A routing document and the rules built from it, by index."""

    document: Document
    rules: dict[int, RuleSpec]


RuleMemo = dict[int, BuiltRules]
"""id(routing document) -> its `BuiltRules` (a hit is checked to be that very document): a
routing file that did not change (the same cached document) gives the very same rule models,
which later stages can then recognise by identity instead of comparing them."""


def _add_routing(sets: _Sets, documents: Iterable[Document], memo: RuleMemo | None) -> None:
    last = dict(memo) if memo is not None else {}
    if memo is not None:
        memo.clear()  # keeps only the documents of this build
    for document in documents:
        kept = last.get(id(document))
        built = kept.rules if kept is not None and kept.document is document else {}
        if memo is not None:
            memo[id(document)] = BuiltRules(document, built)
        for index, data in enumerate(document.data.get("rules", ())):
            rule_id = data["id"]
            if rule_id in sets.locator.rules:
                earlier, at = sets.locator.rules[rule_id]
                first, what = (earlier, ("rules", at, "id")), f"rule {rule_id!r}"
                sets.duplicate(document, ("rules", index, "id"), "duplicate-rule", what, first)
                continue
            rule = built.get(index)
            if rule is None:
                rule = built[index] = build_rule(document, index, data)
            sets.rules.append(rule)
            sets.locator.rules[rule_id] = (document, index)
        if "fallback" in document.data:
            if sets.locator.fallback is not None:
                sets.duplicate(document, ("fallback",), "duplicate-fallback", "a fallback",
                               (sets.locator.fallback, ("fallback",)))
                continue
            sets.fallback = document.data["fallback"]
            sets.locator.fallback = document


Built = tuple[Document, "AgentSpec | None"]
"""A valid document of the set and, for an agent, its model when already built."""


def build_config(
    root: Document,
    documents: Mapping[str, Iterable[Built]],
    *,
    files: tuple[str, ...] = (),
    memo: RuleMemo | None = None,
) -> tuple[ConfigSet, Locator, list[Issue]]:
    """Typed models of one set from its valid documents by kind; duplicates are reported and
    the first declaration kept. `memo` (kept between builds of one set) reuses the rule
    models of routing documents seen before."""
    sets = _Sets(Locator(engine=root))
    _add_agents(sets, documents.get("agents", ()))
    _add_capabilities(sets, (document for document, _ in documents.get("capabilities", ())))
    _add_routing(sets, (document for document, _ in documents.get("routing", ())), memo)
    engine_data = {key: value for key, value in root.data.items() if key != "include"}
    engine = EngineSpec.model_validate({**engine_data, "source": _ref(root)})
    routing_source = _ref(sets.locator.fallback) if sets.locator.fallback else None
    config = ConfigSet(
        engine=engine,
        agents={},
        capabilities={},
        routing=RoutingSpec(rules=tuple(sets.rules), fallback=sets.fallback, source=routing_source),
        files=files,
    ).model_copy(  # read-only mappings that keep declaration order
        update={
            "agents": MappingProxyType(sets.agents),
            "capabilities": MappingProxyType(sets.capabilities),
        }
    )
    return config, sets.locator, sets.issues
