"""The corpora a config set ships, found by the config loader's own rules for what a set may
read: paths below its folder as an include glob expands them (a link is followed only when it
stays inside the folder), regular files only. Lists paths; it never reads a corpus.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from engine.config.globs import expand_glob
from engine.errors import UsageError
from engine.evaluation.corpus import CORPUS_SUFFIXES

MAX_LISTED = 200
"""Corpora listed at most (in path order)."""


def shipped_corpora(root: Path) -> list[str]:
    """Corpus files (CSV, JSONL) below the config set's folder, as `/`-separated paths relative
    to it, sorted; none in hidden folders, none through a link that leads out of the folder."""
    try:
        found = expand_glob(root, "**/*")
    except ValueError:  # a folder too large to look through: nothing is offered
        return []
    listed = []
    for match in found.matches:
        relative = PurePosixPath(Path(match).relative_to(root).as_posix())
        if (relative.suffix.lower() in CORPUS_SUFFIXES
                and not any(part.startswith(".") for part in relative.parts)
                and _regular(match)):
            listed.append(str(relative))
    return sorted(listed)[:MAX_LISTED]


def pick_corpus(root: Path, name: str) -> Path:
    """Where the shipped corpus `name` really is; only a path `shipped_corpora` lists can be
    picked (a `UsageError` otherwise)."""
    if name not in shipped_corpora(root):
        raise UsageError(f"corpus {name!r} is not a corpus of this config set")
    return Path(os.path.realpath(root / name))


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
