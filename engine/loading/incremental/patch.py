"""A reload that replaced only agent files whose set facts did not change, built by patching the
last good build instead of linking and compiling every agent again.

An agent's set facts are everything another agent, the indexes or a whole-set check read from
it (name, enabled, terminal, peers, accepts.from, trigger, entry mark, capabilities, examples).
While they are unchanged, the new build differs from the last only in those agents' models,
their located warnings and the version; anything else goes through the full pipeline. Tests
compare both ways with a cold load.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import NamedTuple

from engine.config.build import Locator
from engine.config.link import agent_links
from engine.config.members import Member
from engine.config.models import AgentSpec
from engine.config.topology import TopologyMemo, agent_warnings
from engine.issues import has_errors, sort_key
from engine.routing.snapshot import Snapshot


@dataclass(frozen=True, slots=True)
class Base:
    """The last good build of a set: the listing (by number, see `Listing`) and members it
    came from, where each name was declared, and its snapshot."""

    listing: int
    members: list[Member]
    locator: Locator
    snapshot: Snapshot


class SetFacts(NamedTuple):
    """What the rest of the set reads from an agent (see the module's docstring): an agent
    edit that keeps these equal is patched into the last build."""

    name: str
    enabled: bool
    terminal: bool
    peers: tuple[str, ...]
    accepts_from: tuple[str, ...]
    trigger: str | None
    is_entry_point: bool
    capabilities: tuple[str, ...]
    examples: tuple[str, ...]


def set_facts(agent: AgentSpec) -> SetFacts:
    """`agent`'s `SetFacts`."""
    handoff = agent.handoff
    return SetFacts(agent.name, agent.enabled, agent.terminal, agent.peers,
                    agent.accepts.from_agents, handoff.trigger, handoff.is_entry_point,
                    agent.capabilities, agent.examples)


def _replaced(base: Base, listing: int, members: list[Member]) -> dict[str, Member] | None:
    """The agent members this load replaced, by agent name, when each keeps its set facts
    and has no examples (their warnings cite lines of other files); else None. A member the
    load did not replace is the very object the memory handed out for its content, so members
    are compared by identity (an unchanged file gives the same object)."""
    old = base.members
    if listing != base.listing or len(old) != len(members):
        return None
    agents = base.snapshot.config.agents
    changed: dict[str, Member] = {}
    for n in [n for n, (a, b) in enumerate(zip(old, members, strict=True)) if a is not b]:
        before, after = old[n].agent, members[n].agent
        if before is None or after is None or agents.get(before.name) is not before:
            return None
        if _kept_data(old[n]) or _kept_data(members[n]) or after.examples:
            return None  # a legacy key's warnings, or examples: only the full path finds them
        if set_facts(before) != set_facts(after):
            return None
        changed[after.name] = members[n]
    return changed


def _kept_data(member: Member) -> bool:
    """An agent document keeps its data only for a legacy key the build warns about."""
    return member.document is None or member.document.data is not None


def patched(
    base: Base | None,
    listing: int,
    members: list[Member],
    *,
    version: Callable[[], str],
    topology: TopologyMemo | None,
) -> tuple[Snapshot, Locator] | None:
    """The last good build with this load's replaced agents, or None when the load changed
    more than agents that keep their set facts (the caller builds in full)."""
    changed = _replaced(base, listing, members) if base is not None else None
    if base is None or changed is None or topology is None or topology.last is None:
        return None
    last = base.snapshot
    agents = dict(last.config.agents)
    documents = dict(base.locator.agents)
    for name, member in changed.items():
        agents[name], documents[name] = member.agent, member.document  # type: ignore[assignment]
    config = last.config.model_copy(update={"agents": MappingProxyType(agents)})
    locator = replace(base.locator, agents=documents)
    files = {member.file for member in changed.values()}
    issues = [found for found in last.warnings if found.file not in files]
    fresh = agent_links(config, locator, changed)
    fresh += agent_warnings(config, locator, memo=topology, names=changed)
    fresh += [found for member in changed.values() for found in member.issues]  # its own
    if has_errors(fresh):
        return None
    warnings = tuple(sorted([*issues, *fresh], key=sort_key))
    return replace(last, config=config, version=version(), warnings=warnings), locator


class _Hashed(NamedTuple):
    """What the last version hashed: its listing's number, members and root file's hash, the
    hashed bytes, and where each member's content hash starts in them."""

    listing: int
    members: list[Member]
    root: bytes
    blob: bytearray
    at: array[int]


@dataclass(slots=True)
class VersionMemo:
    """The bytes the last version hashed (name and content hash of each file, in name order),
    so that the version of a build that replaced a few members of the same listing rewrites
    only their hashes. Gives what `content_version` gives over the same files (tested)."""

    last: _Hashed | None = None

    def version(self, listing: int, name: str, root: bytes, members: list[Member]) -> str:
        """The version of the set whose root file `name` hashes to `root` (members compared
        by identity, as in `_replaced`)."""
        last = self.last
        if last is None or last.listing != listing or last.root != root:
            return self._fresh(listing, name, root, members)
        blob, at, before = bytearray(last.blob), last.at, last.members
        pairs = enumerate(zip(before, members, strict=True))
        for n in [n for n, (old, new) in pairs if old is not new]:
            old, new = before[n].digest, members[n].digest
            if old is None or new is None:  # a hash's length changes: encode anew
                return self._fresh(listing, name, root, members)
            blob[at[n]:at[n] + len(new)] = new
        self.last = _Hashed(listing, list(members), root, blob, at)
        return hashlib.sha256(blob).hexdigest()[:16]

    def _fresh(self, listing: int, name: str, root: bytes, members: list[Member]) -> str:
        files = [(name, root), *((m.relative, m.digest or b"") for m in members)]
        blob, at = bytearray(), array("q", bytes(8 * len(members)))
        for n in sorted(range(len(files)), key=files.__getitem__):
            relative, content = files[n]
            blob += relative.encode("utf-8") + b"\0" + len(content).to_bytes(8, "big")
            if n:
                at[n - 1] = len(blob)
            blob += content
        unique = len({relative for relative, _ in files}) == len(files)
        self.last = _Hashed(listing, list(members), root, blob, at) if unique else None
        return hashlib.sha256(blob).hexdigest()[:16]
