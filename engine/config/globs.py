"""Glob expansion confined to one folder: pathlib's glob rules, never a step outside it.

A symlink is followed only when its target (`realpath`) is inside the folder; one leading
out is returned apart, never entered or read. `**` does not descend into symlinked folders
(as pathlib), so it cannot loop, and wildcards never match names starting with `..` (the
hidden revision folders of a Kubernetes ConfigMap, reached through its visible links).
This module lists paths only; it never opens a file.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from engine.config.folders import resolved

_WILDCARD = re.compile(r"[*?\[]")
MAX_COMPONENTS = 64
MAX_VISITS = 100_000
"""Paths one glob may look at: `**/*/**/*/**` multiplies folders by folders, and a glob comes
from the config under check."""


def real_outside(path: Path | str, base: str) -> str | None:
    """Where `path` really is (links resolved) when that is outside the real folder `base`;
    None for a path the system will not resolve (a NUL byte, a loop or endless chain of
    links): reading it fails, and the read stage reports that."""
    real = resolved(path)
    if real is None:
        return None
    if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
        return None
    return real


@dataclass(slots=True)
class Expansion:
    """What one glob names: `matches` inside the folder (`folders` says which of them are
    folders, as far as the listing showed), `outside` the links leading out."""

    matches: list[str] = field(default_factory=list)
    outside: dict[Path, str] = field(default_factory=dict)
    folders: set[str] = field(default_factory=set)
    scanned: set[str] = field(default_factory=set)
    """The folders whose entries decided the result: while none of them changes (and no
    link in them is replaced), the same glob names the same paths."""


def _components(pattern: str) -> tuple[str, ...]:
    parts: list[str] = []
    for part in PurePath(pattern).parts:
        if "**" in part and part != "**":
            raise ValueError("Invalid pattern: '**' can only be an entire path component")
        if not (part == "**" and parts and parts[-1] == "**"):  # `**/**` is `**`
            parts.append(part)
    if not parts:
        raise ValueError(f"Unacceptable pattern: {pattern!r}")
    if len(parts) > MAX_COMPONENTS:
        raise ValueError(f"more than {MAX_COMPONENTS} path components")
    return tuple(parts)


class _Walk:
    """Paths are plain strings while walking (10,000 files make pathlib's cost visible)."""

    def __init__(self, folder: Path, parts: tuple[str, ...], max_visits: int) -> None:
        self.folder = folder
        self.max_visits = max_visits
        self.base = resolved(folder) or os.path.abspath(folder)
        self.parts = parts
        self.matches: list[tuple[str, bool]] = []
        self.outside: dict[str, str] = {}
        self.scanned: set[str] = set()
        self.visits = 0
        self.matchers: list[Callable[[str], object] | None] = [
            re.compile(fnmatch.translate(part)).fullmatch if _WILDCARD.search(part) else None
            for part in parts
        ]

    def inside(self, path: str, linked: bool) -> bool:
        """False (and the link recorded) for a path whose real location is outside."""
        real = real_outside(path, self.base) if linked else None
        if real is None:
            return True
        self.outside.setdefault(path, real)
        return False

    def select(self, path: str, index: int, linked: bool, folder: bool | None = None) -> None:
        self.visits += 1
        if self.visits > self.max_visits:
            raise ValueError(f"looks at more than {self.max_visits} paths")
        if index == len(self.parts):
            if self.inside(path, linked):
                self.matches.append((path, _is_dir(path) if folder is None else folder))
            return
        if index > 0 and not self.inside(path, linked):
            return
        part, more = self.parts[index], index + 1 < len(self.parts)
        if part == "**":
            for below, below_linked in _folders(path, linked):
                self.scanned.add(below)
                self.select(below, index + 1, below_linked, True)
            return
        for child, child_linked, is_dir in self.children(path, index, linked):
            if not more or is_dir:
                self.select(child, index + 1, child_linked, is_dir)

    def children(self, path: str, index: int, linked: bool) -> Iterator[tuple[str, bool, bool]]:
        match = self.matchers[index]
        self.scanned.add(path)
        if match is None:
            child = os.path.join(path, self.parts[index])
            if os.path.lexists(child) and (index + 1 < len(self.parts) or os.path.exists(child)):
                yield child, linked or os.path.islink(child), _is_dir(child)
            return
        for entry in _entries(path):
            if not entry.name.startswith("..") and match(entry.name):
                yield os.path.join(path, entry.name), linked or entry.is_symlink(), _dir(entry)


def _dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a link, as os.path.isdir
    except OSError:
        return False


def _entries(path: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as entries:
            return list(entries)
    except OSError:  # not a folder, gone, or not ours to list
        return []


def _is_dir(path: Path | str) -> bool:
    return os.path.isdir(path)  # never raises: False for anything it cannot stat


def _folders(start: str, linked: bool) -> Iterator[tuple[str, bool]]:
    """`start` and every folder below it, symlinked folders not entered (pathlib's `**`)."""
    stack = [start]
    while stack:
        folder = stack.pop()
        yield folder, linked
        below = [
            os.path.join(folder, entry.name)
            for entry in _entries(folder)
            if not entry.name.startswith("..") and _entry_is_real_dir(entry)
        ]
        stack.extend(reversed(below))


def _entry_is_real_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def expand_glob(folder: Path, pattern: str, *, max_visits: int = MAX_VISITS) -> Expansion:
    """Paths below `folder` that `pattern` names, sorted, without duplicates; raises
    ValueError for a pattern pathlib would refuse (`""`, `**x`) or one that would look at
    more than `max_visits` paths."""
    walk = _Walk(folder, _components(pattern), max_visits)
    start = str(folder)
    walk.select(start, 0, False)
    found = dict(walk.matches)
    if pattern.endswith(("/", os.sep)):  # "agents/" names folders only, as in pathlib
        found = {match: True for match, is_dir in found.items() if is_dir}
    # pathlib's order (component by component), as one string compare: NUL sorts before every
    # character a name may hold, so it stands for the separator (no lists: sorting 10,000
    # lists would hold the GIL for tens of milliseconds)
    ordered = sorted(found, key=lambda match: match.replace(os.sep, "\0"))
    result = Expansion(outside={Path(link): real for link, real in walk.outside.items()})
    result.scanned = walk.scanned
    result.matches = ordered  # strings: 10,000 Path objects would hold megabytes
    result.folders = {match for match in ordered if found[match]}
    return result
