"""What tells, without parsing, whether a file of a set or a folder its globs looked into may
have changed: stat keys, folder listings, and git's racy rule for files written too recently
for their timestamps to tell (a file that merely aged past that window is no change)."""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any

from engine.config.read import DEFAULT_MAX_BYTES

RACY_S = 2.0
"""A file written this close to when it was read may change again within its timestamp's
granularity without its stat changing: such a file is always read again (git's racy rule)."""


def settled(stat: tuple[int, ...]) -> bool:
    """Whether a file with this `stat_key` was last written (or had its inode changed) more
    than `RACY_S` ago, so its stat alone tells whether it changed."""
    return max(stat[3], stat[4]) < (time.time() - RACY_S) * 1e9


def stat_key(path: Any) -> tuple[int, ...] | None:
    """What changes whenever a file is written or replaced: device, inode, size, times."""
    try:
        return key_of(os.stat(path))
    except (OSError, ValueError):
        return None


def key_of(info: os.stat_result) -> tuple[int, ...]:
    """The stat key (see `stat_key`) of a stat result already taken."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def signature(path: str) -> object:
    """What changes whenever the listing of a folder or the content of a file at `path` may:
    a folder's entries (name, whether a folder, and for a link its inode: a replaced link may
    lead elsewhere; a file saved by rename keeps its entry), a file's stat key and, when it was
    written too recently for its timestamps to tell two writes apart (`RACY_S`), its hash."""
    try:
        if os.path.isdir(path):
            with os.scandir(path) as entries:
                return frozenset((entry.name, entry.is_dir(follow_symlinks=False),
                                  entry.inode() if entry.is_symlink() else 0)
                                 for entry in entries)
    except OSError:
        return None
    stat = stat_key(path)
    if stat is None or settled(stat):
        return stat
    digest = _digest(path)
    return None if digest is None else (stat, digest)


def _digest(path: Any) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read(DEFAULT_MAX_BYTES + 1)).digest()
    except OSError:
        return None


def signatures(paths: Any) -> tuple[object, ...]:
    """(path, signature, path, signature, ...) for `paths`."""
    return tuple(item for path in paths for item in (path, signature(path)))


def still(recorded: tuple[object, ...]) -> tuple[object, ...] | None:
    """`recorded` (from `signatures`) as it reads now, or None when a path changed. A file
    recorded while racy (stat and hash) that has only aged since, its stat the same and its
    bytes too, is unchanged: how old a file is never counts as a change, whenever it is read."""
    now = signatures(recorded[::2])
    if now == recorded:
        return recorded
    pairs = zip(recorded[::2], recorded[1::2], now[1::2], strict=True)
    if all(then == seen or _aged(path, then, seen) for path, then, seen in pairs):
        return now
    return None


def _aged(path: Any, then: object, seen: object) -> bool:
    """Whether a file recorded as (stat, hash) while racy now has that stat (no longer racy)
    and still that hash."""
    if not (isinstance(then, tuple) and len(then) == 2 and isinstance(then[1], bytes)):
        return False
    return seen == then[0] and _digest(path) == then[1]
