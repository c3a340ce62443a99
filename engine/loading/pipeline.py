"""One config set through every stage: read -> parse -> validate -> build -> link -> compile.

The single code path used by `handoff check`, engine start-up and hot reload. `load_set` is a
pure function of the files: it keeps nothing between calls (hot reload's memory lives in
`engine.loading.incremental`, which runs these same stages). It returns every issue of every
file of the set and the Snapshot when no error was found; it never raises on bad input.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from engine.config.build import Built, Locator, build_config
from engine.config.codes import internal_issue, issue
from engine.config.examples_check import contradicting_examples
from engine.config.heap import collector_paused
from engine.config.include import Included
from engine.config.link import Gaps, link_config
from engine.config.listing import DEFAULT_CAPS, Caps, SetFiles, list_set
from engine.config.lookalikes import keyword_issues, lookalike_names
from engine.config.members import Member, read_member
from engine.config.models import ConfigSet
from engine.config.positions import Document
from engine.config.topology import TopologyMemo, agent_warnings, refused_rules, shadowed_rules
from engine.issues import Issue, has_errors, sort_key
from engine.routing.snapshot import Snapshot, compile_snapshot

if TYPE_CHECKING:
    from engine.loading.incremental.memory import StageMemos

log = logging.getLogger("engine.config")

Loaded = tuple[Snapshot | None, list[Issue]]
"""A load's snapshot (None when it found an error) and every issue it found."""
Progress = Callable[[int, int], None]
"""Called with (files done, files in the set) as a load goes."""
Analyses = Callable[[Snapshot, Locator], list[Issue]]
"""Warnings of a set that loaded, from its snapshot and where each name was declared."""


def content_version(files: Iterable[tuple[str, bytes]]) -> str:
    """First 16 hex digits of sha256 over the sorted (relative path, content sha256) of every
    file."""
    parts: list[bytes] = []
    for relative, content in sorted(files):
        parts += (relative.encode("utf-8"), b"\0", len(content).to_bytes(8, "big"), content)
    return hashlib.sha256(b"".join(parts)).hexdigest()[:16]  # one update: the same digest


def load_set(
    engine_path: Path,
    display: str,
    *,
    caps: Caps = DEFAULT_CAPS,
    progress: Progress | None = None,
    analyses: Analyses | None = None,
) -> Loaded:
    """Load the set rooted at `engine_path`; `display` is its name in issues.

    Cross-file checks run on every file that is valid on its own, whatever failed elsewhere
    (a root that broke its schema lends them the keys that validated), staying silent about
    names a failed file may declare and the root keys in error (`Gaps`). `progress` hears how
    far it got; `analyses` adds the warnings of costlier checks on a set that loaded
    (`handoff check`).
    """
    return guarded(display, partial(_load_set, engine_path, display, caps, progress, analyses))


def guarded(display: str, load: Callable[[], Loaded], forget: Callable[[], None] | None = None
            ) -> Loaded:
    """Run `load` with the collector paused; a bug in a stage is reported as an issue, never a
    traceback (`forget`: drop what a load that failed part-way may have half-written)."""
    try:
        with collector_paused():
            return load()
    except ValidationError as error:  # by the build stage; the schemas make it unreachable
        message = f"the models refused data the schemas accepted: {error}"
        return None, [issue(display, (0, 0), "", "schema", message)]
    except Exception as error:
        log.error("config %s: a stage failed unexpectedly", display, exc_info=error)
        if forget is not None:
            forget()
        return None, [internal_issue(display, error)]


def _load_set(
    engine_path: Path, display: str, caps: Caps, progress: Progress | None,
    analyses: Analyses | None,
) -> Loaded:
    listed = list_set(engine_path, display, caps)
    members = read_members(listed.included, caps, progress)
    if listed.root is None or listed.source is None:
        return unrooted(listed, members, display)
    issues = [*listed.issues, *(found for member in members for found in member.issues)]
    config, locator, found = cross_file(listed.root, members, listed, set_files(display, listed))
    root = (engine_path.name, hashlib.sha256(listed.source.raw).digest())
    version = partial(content_version, [root, *((m.relative, m.digest or b"") for m in members)])
    snapshot, issues = checked_set(config, locator, [*issues, *found], display, version)
    if snapshot is not None and analyses is not None:
        issues += analyses(snapshot, locator)
    return snapshot, issues


def read_members(
    included: list[Included], caps: Caps, progress: Progress | None = None
) -> list[Member]:
    """Every included file through read, parse, validate and (agents) build."""
    members = []
    for done, item in enumerate(included):
        if progress is not None and done % 100 == 0:
            progress(done, len(included))
        members.append(read_member(item, caps))
    return members


def set_files(display: str, listed: SetFiles) -> tuple[str, ...]:
    """The names in issues of every file of the set, the root first."""
    return (display, *(item.file for item in listed.included))


def unrooted(listed: SetFiles, members: list[Member], display: str) -> Loaded:
    """The issues of a set whose root could not be used: each file's own, and the cross-file
    checks on what of a root that broke its schema is valid."""
    issues = list(listed.issues) + [found for member in members for found in member.issues]
    if listed.salvaged is not None:
        salvaged = listed.salvaged
        files = set_files(display, listed)
        issues += cross_file(salvaged.root, members, listed, files, broken=salvaged.broken)[2]
    return None, sorted(issues, key=sort_key)


def cross_file(
    root: Document, members: list[Member], listed: SetFiles, files: tuple[str, ...], *,
    memos: StageMemos | None = None, broken: frozenset[str] = frozenset(),
) -> tuple[ConfigSet, Locator, list[Issue]]:
    """Build the set from its valid files and run every check across them. `broken`: the
    root's keys in error; checks that read them stay silent (the normalization's: shadowed
    rules, contradicting examples, keyword hazards). `memos`: what the reload memory keeps of
    these stages between builds of one set."""
    rules, link, names = (memos.rules, memos.link, memos.names) if memos else (None, None, None)
    config, locator, found = build_config(root, _by_kind(members), files=files, memo=rules)
    gaps = Gaps.of(members, incomplete=listed.incomplete, root=broken)
    found += link_config(config, locator, gaps=gaps, memo=link)
    found += lookalike_names(config, locator, memo=names)
    if "normalization" not in broken:
        found += shadowed_rules(config, locator) + contradicting_examples(config, locator)
        found += keyword_issues(config, locator)
    return config, locator, found


def checked_set(
    config: ConfigSet, locator: Locator, issues: list[Issue], display: str,
    version: Callable[[], str], memos: StageMemos | None = None,
) -> Loaded:
    """The snapshot of a built set with the warnings of its whole-set checks, or None and
    every issue when any is an error. `memos`: as for `cross_file` (the topology's graph, and
    the last snapshot, whose equal parts the compile shares)."""
    if has_errors(issues):
        return None, sorted(issues, key=sort_key)
    graph = memos.topology if memos is not None else TopologyMemo()  # one graph, two uses
    warnings = tuple(sorted([*issues, *agent_warnings(config, locator, memo=graph),
                             *refused_rules(config, locator, memo=graph)], key=sort_key))
    previous = memos.snapshot if memos is not None else None
    snapshot = compile_snapshot(
        config, version=version(), root=display, warnings=warnings, previous=previous
    )
    return snapshot, list(warnings)


def _by_kind(members: list[Member]) -> dict[str, list[Built]]:
    """The valid members' documents (and built agents) by kind, in include order."""
    found: dict[str, list[Built]] = {}
    for member in members:
        if member.document is not None:
            found.setdefault(member.kind, []).append((member.document, member.agent))
    return found
