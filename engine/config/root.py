"""Where a set starts: the root file a path names (an engine.yaml, or a folder holding one),
and the files a listing of the set names. Reads no file."""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from engine.config.codes import issue
from engine.config.listing import SetFiles
from engine.errors import ConfigError

ROOT_FILE = "engine.yaml"
CASES_FILES = ("cases.yaml", "cases.yml")
"""A set's own routing cases, beside its root file: `handoff test` runs the first found, and
`handoff check` checks it with the set."""


def set_root(path: str | os.PathLike[str]) -> tuple[Path, str] | None:
    """The root file of the set `path` names (an engine.yaml, or a folder holding one) and its
    name in issues; None for a folder without one."""
    display = os.fspath(path)
    if not os.path.isdir(display):  # False, not an error, for paths the OS refuses
        return Path(display), display
    candidate = Path(display) / ROOT_FILE
    if not os.path.lexists(candidate):
        return None
    return candidate, str(PurePath(display) / ROOT_FILE)


def required_root(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """`set_root`, raising `ConfigError` (`no-config`) for a folder without a root file."""
    found = set_root(path)
    if found is None:
        message = f"no {ROOT_FILE} in this folder"
        raise ConfigError([issue(os.fspath(path), (0, 0), "", "no-config", message)])
    return found


def files_of(engine_path: Path, listed: SetFiles) -> list[Path]:
    """The root file, then every file `listed` includes; none when the root leads outside."""
    return [] if listed.outside else [engine_path, *(Path(item.path) for item in listed.included)]
