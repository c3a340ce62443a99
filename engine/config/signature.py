"""What tells, without parsing, whether a file of a set or a folder its globs looked into may
have changed: stat keys, folder listings, and git's racy rule for files written too recently
for their timestamps to tell."""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any

from engine.config.read import DEFAULT_MAX_BYTES

RACY_S = 2.0
"""A file written this close to when it was read may change again within its timestamp's
granularity without its stat changing: such a file is always read again (git's racy rule)."""


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
    if stat is None or max(stat[3], stat[4]) < (time.time() - RACY_S) * 1e9:
        return stat
    try:
        with open(path, "rb") as handle:
            return stat, hashlib.sha256(handle.read(DEFAULT_MAX_BYTES + 1)).digest()
    except OSError:
        return None


def signatures(paths: Any) -> tuple[object, ...]:
    """(path, signature, path, signature, ...) for `paths`."""
    return tuple(item for path in paths for item in (path, signature(path)))
