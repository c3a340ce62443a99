"""The files of the config set a runtime serves, as hot reload sees them: exactly the files the
loader reads (its listing), read the loader's way (regular files under the size cap, never
blocking) and hashed. A look tells whether anything changed; the look is then handed to the
load (`load_again`), which trusts its stat keys and hashes instead of taking them again.

Never walks the folder and never follows a link out of it; never parses beyond the root file.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from engine.config.listing import Caps, list_set
from engine.config.parse import MAX_NODES
from engine.config.read import DEFAULT_MAX_BYTES, read_bytes
from engine.config.root import files_of, set_root
from engine.config.signature import key_of, settled
from engine.loading.incremental.keys import Listing
from engine.loading.incremental.loader import listed_again
from engine.loading.incremental.memory import ReloadMemory


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


def _keys(paths: list[str]) -> tuple[list[tuple[int, ...]], bool]:
    """The stat keys of `paths` (of what a link leads to), and whether any is a link: one
    system call per file that is no link."""
    keys: list[tuple[int, ...]] = []
    linked = False
    for path in paths:
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                linked = True
                info = os.stat(path)
        except (OSError, ValueError):
            keys.append(_GONE)
            continue
        keys.append(key_of(info))
    return keys, linked


def _digest(member: str, key: tuple[int, ...], max_bytes: int) -> bytes:
    data = read_bytes(member, max_bytes)
    if isinstance(data, tuple):  # not readable as a config file: its state, not its bytes
        data = b"\0" + data[0].encode() + b"\0" + _STAT.pack(*key)
    return hashlib.sha256(data).digest()


@dataclass(slots=True)
class _Names:
    """The files of one listing and what their names alone give, shared by the looks at it."""

    names: list[str]
    listed: bytes
    folders: tuple[Path, ...]
    where: dict[str, int] | None = None

    @classmethod
    def of(cls, names: list[str]) -> _Names:
        listed = "\0".join(names).encode("utf-8", "surrogateescape") + b"\0\0"
        folders = tuple(Path(f) for f in sorted({n.rpartition(os.sep)[0] for n in names}))
        return cls(names, listed, folders)

    def position(self, path: str) -> int | None:
        """Where `path` (absolute, as the watcher reports it) is among the files."""
        if self.where is None:
            here = os.getcwd()
            self.where = {os.path.join(here, name): n for n, name in enumerate(self.names)}
        return self.where.get(path)


@dataclass(slots=True)
class Look:
    """One look at every file of the set, kept so that the next look, told which files changed
    (the watcher's reported paths), stats and reads only those: each file's stat key (also
    packed, for the stats hash; `_GONE` when there was nothing to stat, None for the load)
    and content hash. `shared`: two files are one inode, or a file is a symbolic link; a write
    is then reported for one name only (the other file's, or the link target's). `listing`:
    the reload memory's listing the files came from (the root file first, then its included
    files in order), None for a look without a memory."""

    files: _Names
    keys: list[tuple[int, ...] | None]
    packed: bytearray
    contents: list[bytes]
    newest: float
    shared: bool
    listing: Listing | None = None

    @property
    def names(self) -> list[str]:
        return self.files.names

    def state(self) -> FileState:
        """Hashes of this look (see `FileState`)."""
        listed = self.files.listed
        content = hashlib.sha256(listed + b"".join(self.contents)).hexdigest()
        stats = hashlib.sha256(listed + self.packed).hexdigest()
        return FileState(content, stats, self.newest, self.files.folders)


def look(
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    digests: Digests | None = None,
    memory: ReloadMemory | None = None,
    last: Look | None = None,
) -> Look:
    """Look at every file of the set rooted at `path` (an engine.yaml or its folder).

    With `digests` (kept by the caller between looks), a file whose stat key is unchanged and
    was last written more than `RACY_S` before is not read again; with `memory`, the set's
    listing is reused while its folders are unchanged; with `last` (the last look), what the
    files' names give is shared with it while they are the same. One pass of cheap steps per
    file.
    """
    listing, members = _listed(path, Caps(max_bytes, MAX_NODES), memory)
    names = [os.fspath(member) for member in members]
    known = digests if digests is not None else {}
    keys, linked = _keys(names)
    contents = []
    for n, (name, key) in enumerate(zip(names, keys, strict=True)):
        seen = known.get(name)
        if seen is not None and seen[0] == key:
            keys[n] = seen[0]  # one tuple for both
            contents.append(seen[1])
            continue
        digest = _digest(name, key, max_bytes)
        if digests is not None and settled(key):
            digests[name] = (key, digest)
        contents.append(digest)
    if digests is not None:
        for gone in set(digests).difference(names):
            digests.pop(gone, None)
    changed = max((max(key[3], key[4]) for key in keys), default=0)
    there = [key for key in keys if key is not _GONE]
    shared = linked or len({key[:2] for key in there}) != len(there)
    packed = bytearray(b"".join([_STAT.pack(*key) for key in keys]))
    stats: list[tuple[int, ...] | None] = [None if key is _GONE else key for key in keys]
    files = last.files if last is not None and last.names == names else _Names.of(names)
    return Look(files, stats, packed, contents, max(changed, 0) / 1e9, shared, listing)


class Looks:
    """The looks a reloader takes at one set over time: the latest look, and each file's stat
    key and digest, so that a look reads only the files that changed. One look at a time, so
    the look kept is always the latest."""

    def __init__(self, path: Path, memory: ReloadMemory) -> None:
        self._path, self._memory = path, memory
        self._digests: Digests = {}
        self._last: Look | None = None
        self._lock = threading.Lock()

    def take(self, changed: Collection[str] | None = None) -> Look:
        """A look at the set: at the `changed` files only when that is enough (see
        `look_again`), else at every file."""
        with self._lock:
            last = self._last
            seen = None if last is None or changed is None else look_again(last, changed)
            if seen is None:
                seen = look(self._path, digests=self._digests, memory=self._memory, last=last)
            self._last = seen
            return seen

    def forget(self) -> None:
        """Keep nothing: the next look reads every file."""
        with self._lock:
            self._last, self._digests = None, {}


def _listed(
    path: Path, caps: Caps, memory: ReloadMemory | None
) -> tuple[Listing | None, list[Path]]:
    """The listing of the set rooted at `path` (from `memory` when given) and the files it
    names: the root file, then every included file inside the set's folder (none when there
    is no root file, or the root leads outside its folder)."""
    root = set_root(path)
    if root is None:
        return None, []
    listing = listed_again(memory, *root, caps) if memory is not None else None
    files = listing.files if listing is not None else list_set(*root, caps)
    return listing, files_of(root[0], files)


def look_again(
    last: Look, changed: Iterable[str], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Look | None:
    """`last` with only the `changed` files stat-ed and read again, or None when that is not
    enough to know the set (a look at every file is needed): a path that exists and is no file
    of the set (it may be one now), the root file (its includes may differ), a file gone or no
    longer a regular file, or files that are `shared`. A changed path that exists no more
    and was no file of the set (an editor's temporary file) changes nothing the set holds."""
    if last.shared:
        return None
    again = Look(last.files, list(last.keys), bytearray(last.packed), list(last.contents),
                 last.newest, False, last.listing)
    for path in changed:
        position = last.files.position(path)
        if position is None and not os.path.lexists(path):
            continue  # gone and no file of the set: a temporary file renamed over one
        if not position:  # None: not a file of the set; 0: the root file
            return None
        key = _regular_key(last.names[position])
        if key is None or _inode_taken(again.keys, position, key):
            return None
        again.keys[position] = key
        again.packed[position * _STAT.size:(position + 1) * _STAT.size] = _STAT.pack(*key)
        again.contents[position] = _digest(last.names[position], key, max_bytes)
        again.newest = max(again.newest, max(key[3], key[4]) / 1e9)
    return again


def _regular_key(name: str) -> tuple[int, ...] | None:
    """The stat key of a regular file (of what a link leads to); None for anything else."""
    try:
        info = os.stat(name)
    except (OSError, ValueError):
        return None
    return key_of(info) if stat.S_ISREG(info.st_mode) else None


def _inode_taken(
    keys: list[tuple[int, ...] | None], position: int, key: tuple[int, ...]
) -> bool:
    """Whether another file than the one at `position` is the inode `key` names (only looked
    for when the file is a new inode: saved by rename)."""
    before = keys[position]
    if before is not None and before[:2] == key[:2]:
        return False
    inode = key[:2]
    return any(other is not None and other[:2] == inode
               for n, other in enumerate(keys) if n != position)


def scan(
    path: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    digests: Digests | None = None,
) -> FileState:
    """The state of every file of the set rooted at `path` (see `look`): 10,000 files cost
    tens of milliseconds."""
    return look(path, max_bytes=max_bytes, digests=digests).state()


def fingerprint(path: Path) -> str:
    """Hash of the files of the set rooted at `path`: their names and bytes."""
    return scan(path).content
