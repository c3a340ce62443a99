"""Public entry points of the config pipeline: load one set, check many, load one document.

`load_config` raises `ConfigError` with every issue; `check_paths` and `load_document` return
issues instead. All of them run the same stages (see `engine.config.pipeline`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from engine.config.codes import issue
from engine.config.document import read_document
from engine.config.pipeline import load_set
from engine.config.read import DEFAULT_MAX_BYTES
from engine.config.snapshot import Snapshot
from engine.errors import ConfigError
from engine.issues import Issue, Severity, sort_key

ROOT_FILE = "engine.yaml"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Every issue of every config set checked, and the snapshots of the sets that loaded."""

    issues: tuple[Issue, ...]
    snapshots: tuple[Snapshot, ...]

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(found for found in self.issues if found.is_error)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(found for found in self.issues if found.severity is Severity.warning)

    def failed(self, *, strict: bool = False) -> bool:
        """True when there are errors (or, with `strict`, any issue at all)."""
        return bool(self.issues) if strict else bool(self.errors)


def _root_of(path: Path, display: str) -> tuple[Path, str] | None:
    if os.path.isdir(path):  # False, not an error, for paths the OS refuses
        candidate = path / ROOT_FILE
        if not os.path.lexists(candidate):
            return None
        return candidate, str(PurePath(display) / ROOT_FILE)
    return path, display


def load_config(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> Snapshot:
    """Load the config set whose root is `path` (an engine.yaml, or a folder holding one).

    Raises ConfigError listing every issue; warnings of a good load are in `snapshot.warnings`.
    """
    display = os.fspath(path)
    found = _root_of(Path(display), display)
    if found is None:
        message = f"no {ROOT_FILE} in this folder"
        raise ConfigError([issue(display, (0, 0), "", "no-config", message)])
    snapshot, issues = load_set(found[0], found[1], max_bytes=max_bytes)
    if snapshot is None:
        raise ConfigError(issues)
    return snapshot


def find_roots(folder: Path, display: str) -> list[tuple[Path, str]]:
    """Every engine.yaml below `folder` (hidden folders skipped), in sorted order."""
    roots = []
    for current, subfolders, files in os.walk(folder):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        if ROOT_FILE in files:
            relative = Path(current).relative_to(folder) / ROOT_FILE
            roots.append((Path(current) / ROOT_FILE, str(PurePath(display) / relative)))
    return sorted(roots, key=lambda root: root[1])


def _check_one(path: str, max_bytes: int) -> tuple[list[Snapshot], list[Issue]]:
    target = Path(path)
    if os.path.isdir(target):
        roots = find_roots(target, path)
        if not roots:
            message = f"no {ROOT_FILE} found in this folder or below"
            return [], [issue(path, (0, 0), "", "no-config", message)]
    else:
        roots = [(target, path)]
    snapshots: list[Snapshot] = []
    issues: list[Issue] = []
    for root, display in roots:
        snapshot, found = load_set(root, display, max_bytes=max_bytes)
        issues += found
        if snapshot is not None:
            snapshots.append(snapshot)
    return snapshots, issues


def check_paths(
    paths: Iterable[str | os.PathLike[str]], *, max_bytes: int = DEFAULT_MAX_BYTES
) -> CheckResult:
    """Check every config set found under `paths`; one bad set never hides another's issues."""
    snapshots: list[Snapshot] = []
    issues: list[Issue] = []
    for path in paths:
        found_snapshots, found = _check_one(os.fspath(path), max_bytes)
        snapshots += found_snapshots
        issues += found
    unique = sorted(set(issues), key=sort_key)
    return CheckResult(issues=tuple(unique), snapshots=tuple(snapshots))


def load_document(
    path: str | os.PathLike[str], schema: str, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[Any | None, list[Issue]]:
    """Read, safely parse and validate one YAML/JSON file against a bundled schema.

    `schema` is a file name under schemas/ ("cases.schema.json", "specs/x.json"). Returns
    (plain data, []) or (None, every located issue).
    """
    document, _source, issues = read_document(path, schema, max_bytes=max_bytes)
    return (document.data if document is not None else None), issues
