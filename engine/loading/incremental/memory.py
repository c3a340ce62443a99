"""`ReloadMemory`: the one record of what hot reload keeps between loads of one set (per-file
results by content, the stat each file was read with, listings, the whole-set stages'
memos). It decides nothing about a load; `engine.loading.incremental.loader` does."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from engine.config.build import RuleMemo
from engine.config.link import LinkMemo
from engine.config.listing import Caps, SetFiles
from engine.config.lookalikes import NameMemo
from engine.config.members import Member
from engine.config.signature import settled, signatures, still
from engine.config.topology import TopologyMemo
from engine.loading.incremental.keys import (
    ContentKey,
    FileKey,
    KeptListing,
    LastLoad,
    Listing,
    ListingKey,
    StatSeen,
)
from engine.loading.incremental.patch import Base, VersionMemo
from engine.routing.snapshot import Snapshot


@dataclass(slots=True)
class StageMemos:
    """What the whole-set stages keep between builds of one set, each read by its stage."""

    rules: RuleMemo = field(default_factory=dict)
    link: LinkMemo = field(default_factory=LinkMemo)
    names: NameMemo = field(default_factory=NameMemo)
    topology: TopologyMemo = field(default_factory=TopologyMemo)
    version: VersionMemo = field(default_factory=VersionMemo)
    snapshot: Snapshot | None = None
    """The last snapshot compiled: the next compile shares its equal parts."""
    base: Base | None = None
    """The last good build, for a load that only replaced agents to patch."""


@dataclass(slots=True)
class ReloadMemory:
    """Per-file results by content, and the stat each was read with: a file whose stat is
    unchanged (and not racy) is not even read again. A load's `loaded` drops what it replaced,
    so files removed from the set do not stay. Safe to share between a look and a load on
    different threads (one lock)."""

    members: dict[ContentKey, Member] = field(default_factory=dict)
    stats: dict[FileKey, StatSeen] = field(default_factory=dict)
    used: set[ContentKey] = field(default_factory=set)
    listings: dict[ListingKey, KeptListing] = field(default_factory=dict)
    listed: int = 0
    """How many listings were made: the number of the next is one more."""
    last: LastLoad | None = None
    stages: StageMemos = field(default_factory=StageMemos)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def listing_still(self, key: ListingKey) -> Listing | None:
        """The listing kept for `key` while the paths it depends on are unchanged (their
        signatures are recorded anew: a file that only aged is compared by stat from now on)."""
        with self.lock:
            found = self.listings.get(key)
        if found is None:
            return None
        current = still(found.signatures)
        if current is None:
            return None
        with self.lock:
            self.listings[key] = KeptListing(current, found.listing)
        return found.listing

    def keep_listing(self, key: ListingKey, paths: list[str], files: SetFiles) -> Listing:
        """Number a new listing and keep it for `key` when its root could be used and every
        path it depends on could be signed; the last one for `key` is forgotten either way."""
        seen = signatures(paths) if files.root is not None else None
        with self.lock:
            self.listed += 1
            listing = Listing(self.listed, files)
            if seen is None or None in seen[1::2]:
                self.listings.pop(key, None)
            else:
                self.listings[key] = KeptListing(seen, listing)
        return listing

    def last_members(self, listing: int, caps: Caps) -> list[Member] | None:
        """The last load's members when it loaded this very listing with these caps."""
        last = self.last
        if last is None or last.listing != listing or last.caps != caps:
            return None
        return last.members

    def loaded(
        self, listing: int, caps: Caps, members: list[Member], dropped: list[Member] | None
    ) -> None:
        """Remember a load's members; forget what it `dropped` (the last load's members it
        replaced), or, when it did not say (None), everything it did not use."""
        self.last = LastLoad(listing, caps, members)
        if dropped is None:
            self._retain()
            return
        with self.lock:
            for member in dropped:
                where = FileKey(member.kind, member.file, caps)
                if member.digest is not None:
                    key = ContentKey(*where[:2], member.digest, caps)
                    if key not in self.used:
                        self.members.pop(key, None)
                seen = self.stats.get(where)
                if seen is not None and seen.member is member:
                    del self.stats[where]
            self.used = set()

    def clear(self) -> None:
        """Forget everything kept, so the next load is a cold one (after a load that failed
        part-way may have left its memos half-written)."""
        with self.lock:
            self.members, self.stats, self.used, self.listings = {}, {}, set(), {}
            self.last, self.stages = None, StageMemos()

    def reuse(self, key: ContentKey) -> Member | None:
        """The member kept for `key`, if any; the key counts as used by this load."""
        with self.lock:
            self.used.add(key)
            return self.members.get(key)

    def put(self, key: ContentKey, member: Member) -> None:
        """Keep `member` for `key`, used by this load."""
        with self.lock:
            self.used.add(key)
            self.members[key] = member

    def reuse_unchanged(self, where: FileKey, stat: tuple[int, ...] | None) -> Member | None:
        """The member last read at `where` when the file's stat is still `stat` (its content
        then counts as used by this load)."""
        with self.lock:
            seen = self.stats.get(where)
            if stat is None or seen is None or seen.stat != stat:
                return None
            member = seen.member
            if member.digest is not None:
                self.used.add(ContentKey(where.kind, where.file, member.digest, where.caps))
            return member

    def seen(self, where: FileKey, stat: tuple[int, ...] | None, member: Member) -> None:
        """Remember that the file at `where` with `stat` gave `member` (once it is settled:
        a racy file's stat may not tell its next write)."""
        if stat is not None and settled(stat):
            with self.lock:
                self.stats[where] = StatSeen(stat, member)

    def _retain(self) -> None:
        """Keep only the results used since the last `loaded`."""
        with self.lock:
            self.members = {key: self.members[key] for key in self.used if key in self.members}
            kept = {FileKey(key.kind, key.file, key.caps) for key in self.used}
            self.stats = {key: seen for key, seen in self.stats.items() if key in kept}
            self.used = set()
