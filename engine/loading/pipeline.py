"""One config set through every stage: read -> parse -> validate -> build -> link -> compile.

The single code path used by `handoff check`, engine start-up and hot reload. It returns every
issue of every file of the set and the Snapshot when no error was found; it never raises on
bad input.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TypeVar, cast

from pydantic import ValidationError

from engine.config.build import Built, Locator, RuleMemo, build_agent, build_config
from engine.config.codes import internal_issue, issue
from engine.config.examples_check import contradicting_examples
from engine.config.heap import collector_paused
from engine.config.include import Included
from engine.config.link import Gaps, LinkMemo, link_config
from engine.config.listing import DEFAULT_CAPS, Caps, SetFiles, list_set
from engine.config.lookalikes import NameMemo, keyword_issues, lookalike_names
from engine.config.members import ByName, Member, MemberCache, read_member
from engine.config.models import AgentSpec, ConfigSet
from engine.config.payloads import OWN_ISSUES
from engine.config.positions import Document
from engine.config.read import Source
from engine.config.topology import TopologyMemo, agent_warnings, refused_rules, shadowed_rules
from engine.issues import Issue, has_errors, sort_key
from engine.loading.patch import Base, VersionMemo, patched
from engine.routing.snapshot import Snapshot, compile_snapshot

log = logging.getLogger("engine.config")


def content_version(files: Iterable[tuple[str, bytes]]) -> str:
    """First 16 hex digits of sha256 over the sorted (relative path, content sha256) of every
    file."""
    parts: list[bytes] = []
    for relative, content in sorted(files):
        parts += (relative.encode("utf-8"), b"\0", len(content).to_bytes(8, "big"), content)
    return hashlib.sha256(b"".join(parts)).hexdigest()[:16]  # one update: the same digest


Progress = Callable[[int, int], None]
"""Called with (files done, files in the set) as a load goes."""
Analyses = Callable[[Snapshot, Locator], list[Issue]]
"""Warnings of a set that loaded, from its snapshot and where each name was declared."""


def _members(
    included: list[Included],
    caps: Caps,
    cache: MemberCache | None,
    progress: Progress | None = None,
    hints: tuple[ByName[tuple[int, ...]], ByName[bytes]] | None = None,
) -> list[Member]:
    """Every included file through read, parse, validate and (agents) build, from `cache`
    when its content was seen before (`hints`: stat keys and content hashes just taken, see
    `MemberCache`): a file whose hash is that of the last load's member is that member."""
    limits = (caps.max_bytes, caps.max_nodes)
    stats, contents = hints or ({}, {})
    last = cache.last_members(included, limits) if cache is not None and contents else None
    members: list[Member | None] = list(last) if last is not None else [None] * len(included)
    redo = range(len(included)) if last is None else [
        n for n, (member, item) in enumerate(zip(last, included, strict=True))
        if member.digest is None or member.digest != contents.get(item.path)
    ]
    for done, n in enumerate(redo):
        if progress is not None and done % 100 == 0:
            progress(done, len(redo))
        item = included[n]
        members[n] = read_member(
            item.kind, item.path, item.file, item.relative, caps=limits,
            build=_builder(item.kind), own_issues=OWN_ISSUES[item.kind], cache=cache,
            known_stat=stats.get(item.path),
        )
    found = cast(list[Member], members)
    if cache is not None:
        dropped = None if last is None else [last[n] for n in redo]
        cache.loaded(included, limits, found, dropped)
    return found


def _builder(kind: str) -> Callable[[Document], AgentSpec] | None:
    return build_agent if kind == "agents" else None


def _by_kind(members: list[Member]) -> dict[str, list[Built]]:
    """The valid members' documents (and built agents) by kind, in include order."""
    found: dict[str, list[Built]] = {}
    for member in members:
        if member.document is not None:
            found.setdefault(member.kind, []).append((member.document, member.agent))
    return found


def load_set(
    engine_path: Path,
    display: str,
    *,
    caps: Caps = DEFAULT_CAPS,
    cache: MemberCache | None = None,
    progress: Progress | None = None,
    analyses: Analyses | None = None,
) -> tuple[Snapshot | None, list[Issue]]:
    """Load the set rooted at `engine_path`; `display` is its name in issues.

    Cross-file checks run on every file that is valid on its own, whatever failed elsewhere
    (a root that broke its schema lends them the keys that validated), staying silent about
    names a failed file may declare and the root keys in error (`Gaps`). `cache` keeps per-file
    results between loads of the same set (hot reload); `progress` hears how far it got;
    `analyses` adds the warnings of costlier checks on a set that loaded (`handoff check`).
    """
    try:
        with collector_paused():
            return _load_set(engine_path, display, caps, cache, progress, analyses)
    except ValidationError as error:  # by the build stage; the schemas make it unreachable
        message = f"the models refused data the schemas accepted: {error}"
        return None, [issue(display, (0, 0), "", "schema", message)]
    except Exception as error:  # a bug in a stage: reported as an issue, never a traceback
        log.error("config %s: a stage failed unexpectedly", display, exc_info=error)
        if cache is not None:
            cache.clear()  # what the failed load kept may be half-written
        return None, [internal_issue(display, error)]


def _load_set(
    engine_path: Path,
    display: str,
    caps: Caps,
    cache: MemberCache | None,
    progress: Progress | None,
    analyses: Analyses | None = None,
) -> tuple[Snapshot | None, list[Issue]]:
    hints = cache.take_hints() if cache is not None else None
    listed = list_set(engine_path, display, caps, cache=cache, checked=hints is not None)
    root, source, included = listed.root, listed.source, listed.included
    issues = list(listed.issues)
    files = (display, *(item.file for item in included))
    if root is None or source is None:
        members = _members(included, caps, None, progress)  # each file's own issues
        issues += [found for member in members for found in member.issues]
        if listed.salvaged is not None:  # the cross-file checks, on what of the root is valid
            salvaged = listed.salvaged
            issues += _cross_file(salvaged.root, members, listed, files, None, salvaged.broken)[2]
        return None, sorted(issues, key=sort_key)
    members = _members(included, caps, cache, progress, hints)
    issues += [found for member in members for found in member.issues]
    memo = _memo(cache, "version", VersionMemo)
    version = partial(_version, engine_path.name, source, members, listed, memo)
    if (done := _patched(cache, listed, members, version)) is not None:
        return done
    config, locator, found = _cross_file(root, members, listed, files, cache)
    issues += found
    if has_errors(issues):
        return None, sorted(issues, key=sort_key)
    graph = _memo(cache, "topology", TopologyMemo) or TopologyMemo()  # one graph, two uses
    warnings = tuple(sorted([*issues, *agent_warnings(config, locator, memo=graph),
                             *refused_rules(config, locator, memo=graph)], key=sort_key))
    previous = cache.snapshot if cache is not None else None
    snapshot = compile_snapshot(
        config, version=version(), root=display, warnings=warnings, previous=previous
    )
    if cache is not None:
        return _keep(cache, listed, members, snapshot, locator)
    return snapshot, [*warnings, *(analyses(snapshot, locator) if analyses else ())]


def _cross_file(
    root: Document, members: list[Member], listed: SetFiles, files: tuple[str, ...],
    cache: MemberCache | None, broken: frozenset[str] = frozenset(),
) -> tuple[ConfigSet, Locator, list[Issue]]:
    """Build the set from its valid files and run every check across them. `broken`: the
    root's keys in error; checks that read them stay silent (the normalization's: shadowed
    rules, contradicting examples, keyword hazards)."""
    rules: RuleMemo | None = _memo(cache, "rules", dict)
    config, locator, found = build_config(root, _by_kind(members), files=files, memo=rules)
    gaps = Gaps.of(members, incomplete=listed.incomplete, root=broken)
    found += link_config(config, locator, gaps=gaps, memo=_memo(cache, "link", LinkMemo))
    found += lookalike_names(config, locator, memo=_memo(cache, "lookalikes", NameMemo))
    if "normalization" not in broken:
        found += shadowed_rules(config, locator) + contradicting_examples(config, locator)
        found += keyword_issues(config, locator)
    return config, locator, found


T = TypeVar("T")


def _memo(cache: MemberCache | None, name: str, make: Callable[[], T]) -> T | None:
    """What the last loads of this set kept under `name` for the next (None without a cache)."""
    return None if cache is None else cast(T, cache.memos.setdefault(name, make()))


def _version(
    name: str, source: Source, members: list[Member], listed: SetFiles, memo: VersionMemo | None
) -> str:
    """The version of a set: its root file's name and content, its members' names and hashes."""
    root = hashlib.sha256(source.raw).digest()
    if memo is not None:
        return memo.version(listed, name, root, members)
    return content_version([(name, root), *((m.relative, m.digest or b"") for m in members)])


def _patched(
    cache: MemberCache | None, listed: SetFiles, members: list[Member], version: Callable[[], str]
) -> tuple[Snapshot, list[Issue]] | None:
    """The last good build with this load's replaced agents, when that is all the load changed
    (see `patched`)."""
    if cache is None:
        return None
    memos = cache.memos
    done = patched(memos.get("base"), listed, members, version=version,
                   topology=memos.get("topology"))
    return None if done is None else _keep(cache, listed, members, *done)


def _keep(
    cache: MemberCache, listed: SetFiles, members: list[Member], snapshot: Snapshot,
    locator: Locator,
) -> tuple[Snapshot, list[Issue]]:
    """Keep a good build for the next one to share with, or to patch (see `patched`)."""
    cache.snapshot = snapshot
    cache.memos["base"] = Base(listed, members, locator, snapshot)
    return snapshot, list(snapshot.warnings)
