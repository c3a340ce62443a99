"""Walking a folder tree, and resolving a path's links, without recursion or past a cap.

A tree of any depth under a checked path, or a chain of any number of links, costs bounded
stack: `os.walk` (before Python 3.12) and `os.path.realpath` take one frame per level or link.
This module lists names and resolves paths only; it never opens a file.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator

MAX_FOLDER_DEPTH = 64
"""Folder levels below a checked path that are searched (as many as an include glob may
have components)."""


def _entries(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:  # gone, not a folder, not ours to list, or a path too long
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows a link, as os.walk does
    except OSError:
        return False


def walk(
    top: str, *, max_depth: int = MAX_FOLDER_DEPTH, too_deep: list[str] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(top)`, top-down, in the same order: (folder, subfolders, files), links to
    folders listed among the subfolders but not entered, folders that cannot be listed
    skipped; the caller may prune `subfolders` in place. Folders `max_depth` levels below
    `top` are listed but not entered: each that has subfolders left goes to `too_deep`."""
    stack = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        subfolders: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        for entry in _entries(folder):
            if not _is_dir(entry):
                files.append(entry.name)
                continue
            subfolders.append(entry.name)
            if entry.is_symlink():
                links.add(entry.name)
        yield folder, subfolders, files
        below = [name for name in subfolders if name not in links]
        if below and depth >= max_depth:
            if too_deep is not None:
                too_deep.append(folder)
            continue
        stack.extend((os.path.join(folder, name), depth + 1) for name in reversed(below))


def resolved(path: str | os.PathLike[str]) -> str | None:
    """`os.path.realpath(path)`, or None when the system will not resolve it: a NUL byte, or
    a chain of links longer than it follows (ELOOP, asked of `os.stat` first: realpath
    itself would follow any number of links, one stack frame each)."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return None
    except ValueError:
        return None
    return os.path.realpath(path)
