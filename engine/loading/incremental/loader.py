"""`load_again`: load a set once more with its reload memory, redoing only what changed since
the last load, and give what a cold load of the same files gives (`load_set`; the
cold-versus-incremental tests hold the two equal). It runs the pipeline's own stages."""

from __future__ import annotations

import hashlib
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from engine.config.build import Locator
from engine.config.listing import DEFAULT_CAPS, Caps, list_set
from engine.config.members import Member, checked_member, content_hash, unreadable
from engine.config.read import read_source
from engine.config.root import required_root
from engine.config.signature import stat_key
from engine.loading.incremental.keys import ContentKey, FileKey, Listing, ListingKey
from engine.loading.incremental.memory import ReloadMemory
from engine.loading.incremental.patch import Base, patched
from engine.loading.loader import snapshot_of
from engine.loading.pipeline import (
    Loaded,
    checked_set,
    cross_file,
    guarded,
    read_members,
    set_files,
    unrooted,
)
from engine.routing.snapshot import Snapshot

if TYPE_CHECKING:
    from engine.config.include import Included
    from engine.loading.incremental.look import Look


def load_again(
    memory: ReloadMemory, path: str | os.PathLike[str], look: Look | None = None, *,
    caps: Caps = DEFAULT_CAPS,
) -> Snapshot:
    """`load_config(path)` with `memory`: only files whose content changed are read, parsed,
    validated and built again, and the whole-set stages reuse what they kept. `look`: a look
    at the set taken with this memory just before; its listing, stat keys and content hashes
    are trusted (a file changed since is caught by the next look). Raises `ConfigError`."""
    engine_path, display = required_root(path)
    load = partial(_load, memory, engine_path, display, caps, look)
    return snapshot_of(guarded(display, load, forget=memory.clear))


def listed_again(memory: ReloadMemory, engine_path: Path, display: str, caps: Caps) -> Listing:
    """The set's listing: the one `memory` keeps while the root file and the folders its globs
    looked into are unchanged, else a new one (kept when it can be)."""
    key = ListingKey(str(engine_path), display, caps)
    found = memory.listing_still(key)
    if found is not None:
        return found
    scanned: set[str] = set()
    files = list_set(engine_path, display, caps, scanned=scanned)
    return memory.keep_listing(key, [str(engine_path), *sorted(scanned)], files)


def _load(
    memory: ReloadMemory, engine_path: Path, display: str, caps: Caps, look: Look | None
) -> Loaded:
    listing = look.listing if look is not None else None
    if listing is None:
        listing, look = listed_again(memory, engine_path, display, caps), None
    listed = listing.files
    if listed.root is None or listed.source is None:
        return unrooted(listed, read_members(listed.included, caps), display)
    members = _members(memory, listing, caps, look)
    issues = [*listed.issues, *(found for member in members for found in member.issues)]
    stages = memory.stages
    root = hashlib.sha256(listed.source.raw).digest()
    version = partial(stages.version.version, listing.number, engine_path.name, root, members)
    done = patched(stages.base, listing.number, members, version=version,
                   topology=stages.topology)
    if done is not None:
        return _keep(memory, listing.number, members, *done)
    files = set_files(display, listed)
    config, locator, found = cross_file(listed.root, members, listed, files, memos=stages)
    snapshot, issues = checked_set(config, locator, [*issues, *found], display, version, stages)
    if snapshot is None:
        return None, issues
    return _keep(memory, listing.number, members, snapshot, locator)


def _members(
    memory: ReloadMemory, listing: Listing, caps: Caps, look: Look | None
) -> list[Member]:
    """Every included file's member: from `memory` when its content was seen before. With a
    `look` of this very listing, a file whose hash there is that of the last load's member is
    that member, without a stat or a read; the others use the look's stat keys."""
    included = listing.files.included
    seen = look if look is not None and len(look.keys) == len(included) + 1 else None
    last = memory.last_members(listing.number, caps) if seen is not None else None
    members: list[Member | None] = list(last) if last is not None else [None] * len(included)
    redo = range(len(included)) if last is None or seen is None else [
        n for n, member in enumerate(last)
        if member.digest is None or member.digest != seen.contents[n + 1]
    ]
    for n in redo:
        stat = (seen.keys[n + 1] if seen is not None else None) or stat_key(included[n].path)
        members[n] = _member(memory, included[n], caps, stat)
    found = cast(list[Member], members)
    memory.loaded(listing.number, caps, found, None if last is None else [last[n] for n in redo])
    return found


def _member(
    memory: ReloadMemory, item: Included, caps: Caps, stat: tuple[int, ...] | None
) -> Member:
    """One file's member: the one last read when its stat is unchanged, else the one kept
    for its content, else read, parsed, validated and built afresh."""
    where = FileKey(item.kind, item.file, caps)
    found = memory.reuse_unchanged(where, stat)
    if found is not None:
        return found
    source, issues = read_source(item.path, file=item.file, max_bytes=caps.max_bytes)
    if source is None:
        return unreadable(item, issues)
    digest = content_hash(source)
    key = ContentKey(item.kind, item.file, digest, caps)
    found = memory.reuse(key)
    if found is None:
        found = checked_member(item, source, digest, caps)
    memory.put(key, found)
    memory.seen(where, stat, found)
    return found


def _keep(
    memory: ReloadMemory, listing: int, members: list[Member], snapshot: Snapshot,
    locator: Locator,
) -> Loaded:
    """Keep a good build for the next one to share with, or to patch (see `patched`)."""
    memory.stages.snapshot = snapshot
    memory.stages.base = Base(listing, members, locator, snapshot)
    return snapshot, list(snapshot.warnings)
