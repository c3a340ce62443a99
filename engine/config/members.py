"""One included file of a set through read -> parse -> validate -> build, and the cache of
those per-file results by content, so a reload redoes only the files whose bytes changed.

A `Member` is everything the whole-set stages (merge, link, topology, compile) need from one
file. It never looks at another file: cross-file checks belong to the link stage.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, TypeVar

from engine.config.build import LEGACY_TRIGGER
from engine.config.codes import internal_issue
from engine.config.indentation import merged_items_said
from engine.config.models import AgentSpec
from engine.config.parse import MAX_ALIAS_NODES, MAX_DEPTH, parse_text, positions_of
from engine.config.positions import Document, PathKey, Position, json_path
from engine.config.read import Source, read_source
from engine.config.schemas import SCHEMA_BY_KIND
from engine.config.signature import settled, signatures, stat_key, still
from engine.config.validate import validate_document
from engine.issues import Issue

log = logging.getLogger("engine.config")

Payload = Callable[[Document], list[Issue]]
V = TypeVar("V", covariant=True)


class ByName(Protocol[V]):
    """What a look at the set gives per file name (a dict will do)."""

    def get(self, name: str, /) -> V | None: ...


@dataclass(frozen=True, slots=True)
class Member:
    """One file's own result. `document` (and, for an agent, its built `agent`) is None when
    the file has an error of its own; `declares` then holds the names it still shows, so the
    link stage can stay silent about names the broken file may declare."""

    kind: str
    file: str
    relative: str
    digest: bytes | None
    document: Document | None
    issues: tuple[Issue, ...]
    agent: AgentSpec | None = None
    declares: frozenset[str] | None = frozenset()
    """Names a failed file declares; None when they cannot be known (it did not parse)."""

    @property
    def ok(self) -> bool:
        return self.document is not None


def _declared(kind: str, data: Any, issues: list[Issue]) -> frozenset[str] | None:
    """Names a document that failed validation still declares; None when they cannot be read
    (an agent whose name is missing or malformed may be the one every reference means)."""
    if kind == "routing":
        return frozenset()
    if not isinstance(data, dict):
        return None
    if kind == "agents":
        name = data.get("name")
        if not isinstance(name, str) or any(found.json_path == "$.name" for found in issues):
            return None
        return frozenset({name})
    names = data.get("capabilities")
    if not isinstance(names, dict):
        return None
    at_names = {json_path(("capabilities", str(name))) for name in names}
    if any(found.json_path in at_names and found.code == "schema" for found in issues):
        return None  # a malformed name (the schema's propertyNames)
    return frozenset(str(name) for name in names)


@dataclass(slots=True)
class MemberCache:
    """Per-file results keyed by (kind, name in issues, content hash, caps), and the stat each
    was read with: a file whose stat is unchanged (and not racy) is not even read again.
    `retain` drops what a load did not use, so files removed from the set do not stay."""

    entries: dict[tuple[object, ...], Member] = field(default_factory=dict)
    stats: dict[tuple[object, ...], tuple[tuple[int, ...], Member]] = field(default_factory=dict)
    used: set[tuple[object, ...]] = field(default_factory=set)
    listings: dict[tuple[object, ...], tuple[tuple[object, ...], Any]] = field(
        default_factory=dict
    )
    """What a set's root lists, by (root, caps): valid while the root file and every folder
    its globs looked into keep their `signature`."""
    snapshot: Any = None
    """The last snapshot compiled from these members: the next compile shares its equal
    parts."""
    memos: dict[str, Any] = field(default_factory=dict)
    """What the whole-set stages keep between builds of this set (by stage)."""
    hints: ByName[tuple[int, ...]] | None = None
    """Stat keys of every file of the set, taken by a look at the whole set (hot reload's scan)
    just before a load: that load uses them instead of statting every file (and checking the
    listing) again. Taken once; a file changed since is caught by the look after the load."""
    contents: ByName[bytes] | None = None
    """The content hash of every file, taken with `hints`: a file whose hash equals that of
    the last load's member there is that member, without a stat or a read."""
    last: tuple[Any, tuple[int, int], list[Member]] | None = None
    """The last load's listing of included files, its caps and its members, in order."""
    last_checked: tuple[object, ...] | None = None
    """The listing key whose folders were compared last."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def listing(self, key: tuple[object, ...], *, checked: bool = False) -> Any | None:
        """The listing kept for `key` while its folders are unchanged (`checked`: a look at
        the set has just compared them, so they are not compared again if that look was for
        this very `key`)."""
        with self.lock:
            found = self.listings.get(key)
            trusted = checked and key == self.last_checked
        if found is None:
            return None
        if not trusted:
            current = still(found[0])
            if current is None:
                return None
            with self.lock:
                self.listings[key] = (current, found[1])  # aged: compared by stat from now on
                self.last_checked = key
        return found[1]

    def hint(
        self, stats: ByName[tuple[int, ...]], contents: ByName[bytes] | None = None
    ) -> None:
        """Stat keys (and content hashes) a look at the whole set just took, for the next load
        (see `hints`)."""
        self.hints, self.contents = stats, contents

    def take_hints(self) -> tuple[ByName[tuple[int, ...]], ByName[bytes]] | None:
        """The stat keys and content hashes of the last look, once."""
        hints, contents, self.hints, self.contents = self.hints, self.contents, None, None
        return None if hints is None else (hints, contents or {})

    def last_members(self, listed: Any, caps: tuple[int, int]) -> list[Member] | None:
        """The last load's members when it loaded this very listing with these caps."""
        last = self.last
        return last[2] if last is not None and last[0] is listed and last[1] == caps else None

    def loaded(
        self, listed: Any, caps: tuple[int, int], members: list[Member],
        dropped: list[Member] | None,
    ) -> None:
        """Remember a load's members; forget what it `dropped` (the last load's members it
        replaced), or, when it did not say (None), everything it did not use."""
        self.last = (listed, caps, members)
        if dropped is None:
            self.retain()
            return
        with self.lock:
            for member in dropped:
                key = (member.kind, member.file, member.digest, caps)
                if key not in self.used:
                    self.entries.pop(key, None)
                seen = self.stats.get((member.kind, member.file, caps))
                if seen is not None and seen[1] is member:
                    del self.stats[(member.kind, member.file, caps)]
            self.used = set()

    def keep_listing(self, key: tuple[object, ...], paths: list[Any], listing: Any) -> None:
        """Keep `listing` (None: it cannot be kept) for `key`; the last one is forgotten
        either way, so a `checked` look never finds a listing older than the files."""
        seen = signatures(paths) if listing is not None else None
        with self.lock:
            if seen is None or None in seen[1::2]:
                self.listings.pop(key, None)
            else:
                self.listings[key] = (seen, listing)
                self.last_checked = key

    def clear(self) -> None:
        """Forget everything kept, so the next load is a cold one (after a load that failed
        part-way may have left its memos half-written)."""
        with self.lock:
            self.entries, self.stats, self.used, self.listings = {}, {}, set(), {}
            self.snapshot, self.memos, self.last, self.last_checked = None, {}, None, None
            self.hints = self.contents = None

    def get(self, key: tuple[object, ...]) -> Member | None:
        with self.lock:
            self.used.add(key)
            return self.entries.get(key)

    def put(self, key: tuple[object, ...], member: Member) -> None:
        with self.lock:
            self.used.add(key)
            self.entries[key] = member

    def unchanged(self, where: tuple[object, ...], stat: tuple[int, ...] | None) -> Member | None:
        """The member last read at `where` when the file's stat is still `stat`."""
        with self.lock:
            seen = self.stats.get(where)
            if stat is None or seen is None or seen[0] != stat:
                return None
            member = seen[1]
            self.used.add((*where[:2], member.digest, where[2]))
            return member

    def seen(self, where: tuple[object, ...], stat: tuple[int, ...] | None, member: Member) -> None:
        if stat is not None and settled(stat):
            with self.lock:
                self.stats[where] = (stat, member)

    def retain(self) -> None:
        """Keep only the entries used since the last `retain`."""
        with self.lock:
            self.entries = {key: self.entries[key] for key in self.used if key in self.entries}
            kept = {(key[0], key[1], key[3]) for key in self.used}
            self.stats = {key: seen for key, seen in self.stats.items() if key in kept}
            self.used = set()


def read_member(
    kind: str,
    path: Any,
    file: str,
    relative: str,
    *,
    caps: tuple[int, int],
    build: Callable[[Document], AgentSpec] | None,
    own_issues: Payload,
    cache: MemberCache | None = None,
    known_stat: tuple[int, ...] | None = None,
) -> Member:
    """Read one file; parse, validate and build it unless `cache` holds its content's result.

    `build` turns a valid agent document into its model; `own_issues` finds the problems a
    valid document still has on its own (a payload schema that is not a schema). `known_stat`:
    the file's stat key when a look at the whole set just took it (see `MemberCache.hints`).
    """
    where = (kind, file, caps)
    stat = None if cache is None else known_stat or stat_key(path)
    found = cache.unchanged(where, stat) if cache is not None else None
    if found is not None:
        return found
    source, issues = read_source(path, file=file, max_bytes=caps[0])
    if source is None:
        return Member(kind, file, relative, None, None, tuple(issues), declares=None)
    digest = hashlib.sha256(source.raw).digest()
    key = (kind, file, digest, caps)
    found = cache.get(key) if cache is not None else None
    if found is None:
        found = _fresh(kind, source, path, relative, digest, caps[1], build, own_issues)
    if cache is not None:
        cache.put(key, found)
        cache.seen(where, stat, found)
    return found


def _fresh(
    kind: str,
    source: Source,
    path: Any,
    relative: str,
    digest: bytes,
    max_nodes: int,
    build: Callable[[Document], AgentSpec] | None,
    own_issues: Payload,
) -> Member:
    try:
        member = _checked(kind, source, relative, digest, max_nodes, own_issues)
        return _with_model(member, path, build, max_nodes)
    except Exception as error:  # a bug in a stage: this file fails, the others are still checked
        log.error("config %s: a stage failed unexpectedly", source.file, exc_info=error)
        return Member(kind, source.file, relative, digest, None,
                      (internal_issue(source.file, error),), declares=None)


def _checked(
    kind: str, source: Source, relative: str, digest: bytes, max_nodes: int, own_issues: Payload
) -> Member:
    """Parse and validate one file's text: a member holding its document (and no model)."""
    file = source.file
    document, issues = parse_text(source.text, file, max_nodes=max_nodes, positions=False)
    if document is None:
        return Member(kind, file, relative, digest, None, tuple(issues), declares=None)
    issues = validate_document(document, SCHEMA_BY_KIND[kind]) or own_issues(document)
    if any(found.is_error for found in issues):
        declares = _declared(kind, document.data, issues)
        said = tuple(merged_items_said(issues, source.text))  # in the author's words
        return Member(kind, file, relative, digest, None, said, declares=declares)
    return Member(kind, file, relative, digest, document, tuple(issues))  # warnings only


def _with_model(
    member: Member, path: Any, build: Callable[[Document], AgentSpec] | None, max_nodes: int
) -> Member:
    """A valid agent member with its model built; its document then keeps positions only
    (found again from the file on demand: its text is not kept either)."""
    document, digest = member.document, member.digest
    if build is None or document is None or digest is None:
        return member
    agent = build(document)
    if LEGACY_TRIGGER not in document.data:  # nothing later reads the data: the model has it
        located = partial(_positions_from_file, str(path), digest, member.file, max_nodes)
        document = Document(document.file, None, document.values, document.keys, located)
    return Member(member.kind, member.file, member.relative, digest, document, member.issues,
                  agent)


def _positions_from_file(
    path: Any, digest: bytes, file: str, max_nodes: int
) -> tuple[dict[PathKey, Position], dict[PathKey, Position]]:
    """Positions of a file read again for an issue (its text is not kept): only when its
    content is still what was checked; else none (issues fall back to the file's start)."""
    source, _ = read_source(path, file=file)
    if source is None or hashlib.sha256(source.raw).digest() != digest:
        return {}, {}
    return positions_of(source.text, file, (MAX_DEPTH, MAX_ALIAS_NODES, max_nodes))
