"""The files of the config set a runtime serves, as hot reload sees them: exactly the files the
loader reads (`set_members`), read the loader's way (regular files under the size cap, never
blocking), hashed, and watched until they have been quiet long enough to build.

Never walks the folder and never follows a link out of it; never parses beyond the root file.
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from engine.config.loader import set_members
from engine.config.members import RACY_S, MemberCache
from engine.config.read import DEFAULT_MAX_BYTES, read_bytes


@dataclass(frozen=True, slots=True)
class FileState:
    """One look at the set. `content` hashes names and bytes (equal content = nothing to do);
    `stats` hashes names, inodes, sizes and times (any write at all, even A -> B -> A);
    `newest` is the wall-clock time of the latest write or rename among the files."""

    content: str
    stats: str
    newest: float
    folders: tuple[Path, ...]


Digests = dict[str, tuple[tuple[int, ...], bytes]]
"""Path -> (stat key, content digest) of the files read by earlier scans."""
_STAT = struct.Struct("<QQqqq")
_GONE = (0, 0, -1, -1, -1)


def _stat_key(path: str) -> tuple[int, ...]:
    """(device, inode, size, mtime ns, ctime ns); `_GONE` when there is nothing to stat."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return _GONE
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _digest(member: str, key: tuple[int, ...], max_bytes: int) -> bytes:
    data = read_bytes(member, max_bytes)
    if isinstance(data, tuple):  # not readable as a config file: its state, not its bytes
        data = b"\0" + data[0].encode() + b"\0" + _STAT.pack(*key)
    return hashlib.sha256(data).digest()


def scan(
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    digests: Digests | None = None,
    cache: MemberCache | None = None,
) -> FileState:
    """Look at every file of the set rooted at `path` (an engine.yaml or its folder).

    With `digests` (kept by the caller between scans), a file whose stat key is unchanged and
    was last written more than `RACY_S` before is not read again; with `cache`, the set's
    listing is reused while its folders are unchanged. One pass of cheap steps per file, then
    one hash of everything: 10,000 files cost tens of milliseconds.
    """
    names = [os.fspath(member) for member in set_members(path, max_bytes=max_bytes, cache=cache)]
    known = digests if digests is not None else {}
    settled = (time.time() - RACY_S) * 1e9
    keys = [_stat_key(name) for name in names]
    contents = []
    for name, key in zip(names, keys, strict=True):
        seen = known.get(name)
        digest = seen[1] if seen is not None and seen[0] == key else None
        if digest is None:
            digest = _digest(name, key, max_bytes)
            if digests is not None and max(key[3], key[4]) < settled:
                digests[name] = (key, digest)
        contents.append(digest)
    if digests is not None:
        for gone in set(digests).difference(names):
            digests.pop(gone, None)
    changed = max((max(key[3], key[4]) for key in keys), default=0)
    newest = max(changed, 0) / 1e9  # the time of the last write or rename
    listed = "\0".join(names).encode("utf-8", "surrogateescape") + b"\0\0"
    content = hashlib.sha256(listed + b"".join(contents)).hexdigest()
    stats = hashlib.sha256(listed + b"".join([_STAT.pack(*key) for key in keys])).hexdigest()
    folders = tuple(Path(folder) for folder in sorted({n.rpartition(os.sep)[0] for n in names}))
    if cache is not None:
        pairs = zip(names, keys, strict=True)
        cache.hint({name: None if key is _GONE else key for name, key in pairs})
    return FileState(content, stats, newest, folders)


def settle(
    path: Path,
    quiet_s: float,
    *,
    deadline: float,
    first: FileState | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    digests: Digests | None = None,
    cache: MemberCache | None = None,
) -> FileState | None:
    """The state of the set once no file changed for `quiet_s` seconds, or None if it was
    still changing at `deadline` (a `time.monotonic()` value).

    The quiet time is read from the files' own times, so a set untouched for longer costs one
    look; a time in the future (clock skew) is never trusted beyond one full quiet period.
    """
    state = first or scan(path, max_bytes=max_bytes, digests=digests, cache=cache)
    while True:
        wait = min(quiet_s - (time.time() - state.newest), quiet_s)
        if wait <= 0:
            return state
        if time.monotonic() + wait > deadline:
            return None
        time.sleep(wait)
        again = scan(path, max_bytes=max_bytes, digests=digests, cache=cache)
        if again.stats == state.stats:
            return again
        state = again
