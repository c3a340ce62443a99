"""Public entry points of the config pipeline: load one set, check many, load one document.

`load_config` raises `ConfigError` with every issue; `check_paths` and `load_document` return
issues instead. All of them run the same stages (see `engine.loading.pipeline`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePath
from typing import Any

from engine.config.codes import issue
from engine.config.document import read_document
from engine.config.folders import MAX_FOLDER_DEPTH, resolved, walk
from engine.config.listing import Caps, list_set
from engine.config.parse import MAX_NODES
from engine.config.read import DEFAULT_MAX_BYTES
from engine.config.root import CASES_FILES, ROOT_FILE, files_of, required_root, set_root
from engine.errors import ConfigError
from engine.issues import Issue, Severity, sort_key
from engine.loading.pipeline import Loaded, load_set
from engine.routing.snapshot import Snapshot
from engine.routing.vocabulary import vocabulary_warnings


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Every issue of every config set checked, the snapshots of the sets that loaded, and
    how many sets and files were checked (for a summary line)."""

    issues: tuple[Issue, ...]
    snapshots: tuple[Snapshot, ...]
    sets: int = 0
    files: int = 0

    @property
    def errors(self) -> tuple[Issue, ...]:
        return tuple(found for found in self.issues if found.is_error)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        return tuple(found for found in self.issues if found.severity is Severity.warning)

    def failed(self, *, strict: bool = False) -> bool:
        """True when there are errors (or, with `strict`, any issue at all)."""
        return bool(self.issues) if strict else bool(self.errors)


def snapshot_of(loaded: Loaded) -> Snapshot:
    """The snapshot of a load, or `ConfigError` listing every issue it found."""
    snapshot, issues = loaded
    if snapshot is None:
        raise ConfigError(issues)
    return snapshot


def load_config(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = MAX_NODES,
) -> Snapshot:
    """Load the config set whose root is `path` (an engine.yaml, or a folder holding one).

    Raises ConfigError listing every issue; warnings of a good load are in `snapshot.warnings`.
    `max_bytes` and `max_nodes` cap each file (as `handoff check --max-bytes/--max-nodes`).
    """
    engine_path, display = required_root(path)
    return snapshot_of(load_set(engine_path, display, caps=Caps(max_bytes, max_nodes)))


def set_members(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = MAX_NODES,
) -> list[Path]:
    """The files `load_config(path)` would read, without reading them: the root file, then
    every included file inside the set's folder ([] when there is no root file). Hot reload
    watches and fingerprints exactly these, so it and `handoff check` agree on the set."""
    found = set_root(path)
    if found is None:
        return []
    return files_of(found[0], list_set(found[0], found[1], Caps(max_bytes, max_nodes)))


def find_roots(
    folder: Path, display: str, *, too_deep: list[str] | None = None
) -> list[tuple[Path, str]]:
    """Every engine.yaml below `folder` (hidden folders skipped), in sorted order, searched
    `MAX_FOLDER_DEPTH` levels deep: the folders not entered go to `too_deep`."""
    roots = []
    for current, subfolders, files in walk(str(folder), too_deep=too_deep):
        found = ROOT_FILE in files or ROOT_FILE in subfolders  # a folder there: not-a-file
        subfolders[:] = sorted(
            name for name in subfolders if not name.startswith(".") and name != ROOT_FILE
        )
        if found:
            relative = Path(current).relative_to(folder) / ROOT_FILE
            roots.append((Path(current) / ROOT_FILE, str(PurePath(display) / relative)))
    return sorted(roots, key=lambda root: root[1])


def enclosing_root(path: str) -> tuple[Path, str] | None:
    """The engine.yaml of the set a non-root file belongs to (nearest ancestor folder)."""
    if os.path.basename(path) == ROOT_FILE:
        return None
    for folder in Path(os.path.abspath(path)).parents:
        candidate = folder / ROOT_FILE
        if os.path.isfile(candidate):
            relative = os.path.relpath(candidate, os.path.dirname(os.path.abspath(path)))
            return candidate, os.path.normpath(os.path.join(os.path.dirname(path), relative))
    return None


def _roots(path: str, *, skip_unowned: bool) -> tuple[list[tuple[Path, str]], list[Issue]]:
    """The roots `path` stands for: every set below a folder, the set a file belongs to (with
    `skip_unowned`, none for a file that is no engine.yaml and lies in no set's folder)."""
    if os.path.isdir(path):
        too_deep: list[str] = []
        roots = find_roots(Path(path), path, too_deep=too_deep)
        issues = [_too_deep(path, too_deep)] if too_deep else []
        if not roots:
            message = f"no {ROOT_FILE} found in this folder or below"
            issues.append(issue(path, (0, 0), "", "no-config", message))
        return roots, issues
    enclosing = enclosing_root(path) if os.path.isfile(path) else None
    if enclosing is None and skip_unowned and os.path.basename(path) != ROOT_FILE:
        return [], []
    if enclosing is None and os.path.isfile(path) and is_corpus(path):
        return [], corpus_issues(path, None)  # in no set: its rows alone
    return ([enclosing] if enclosing else [(Path(path), path)]), []


def _too_deep(path: str, folders: list[str]) -> Issue:
    """`too-deep` at the first folder whose subfolders were not searched."""
    message = (f"folders nest more than {MAX_FOLDER_DEPTH} levels below {path}: "
               f"not searched for {ROOT_FILE} below this one")
    if len(folders) > 1:
        message += f" (nor below {len(folders) - 1} more such folders)"
    return issue(folders[0], (0, 0), "", "too-deep", message)


def _identity(path: Path) -> str:
    """One key per real file, so a set reached through several paths is checked once (a path
    the system will not resolve is its own key: the read stage reports it)."""
    return resolved(path) or str(path)


def is_corpus(path: str) -> bool:
    """Whether `path` names a labelled corpus (CSV, JSONL) by its suffix."""
    from engine.evaluation.corpus import CORPUS_SUFFIXES

    return os.path.splitext(path)[1].lower() in CORPUS_SUFFIXES


def corpus_issues(path: str, snapshot: Snapshot | None) -> list[Issue]:
    """Every bad row of a corpus given to check, its agent names against the set when it
    loaded (else its rows alone: the set's own issues say why it did not load)."""
    from engine.evaluation.corpus import corpus_issues as read  # only for corpora given

    if snapshot is None:
        return read(path, agents=None)
    return read(path, agents=tuple(snapshot.agents), entry=snapshot.config.engine.entry)


def _not_included(path: str, root: str, snapshot: Snapshot | None) -> list[Issue]:
    """Issues of a file given on its own: none when its set includes it; a corpus or a cases
    file is checked as one (against the set when it loaded); anything else is
    `not-included`."""
    if snapshot is not None:
        files = {os.path.realpath(file) for file in snapshot.config.files}
        if os.path.realpath(path) in files:
            return []
    if is_corpus(path):
        return corpus_issues(path, snapshot)
    from engine.routing.cases import check_cases_file  # only for files a set does not include

    found = check_cases_file(path, snapshot)
    if found is not None:
        return found
    if snapshot is None:
        return []  # the set's own issues say why it did not load
    message = f"not part of the config set: {root} does not include this file"
    return [issue(path, (0, 0), "", "not-included", message)]


def own_cases(display: str) -> str | None:
    """The set's own cases file (as named in issues), beside its root file, or None."""
    folder = PurePath(display).parent
    found = (str(folder / name) for name in CASES_FILES)
    return next((name for name in found if os.path.isfile(name)), None)


def _own_cases_issues(display: str, snapshot: Snapshot | None) -> list[Issue]:
    """Every issue of the set's own cases file: its shape, then (when the set loaded) the
    agents, tools, rules and capabilities it names. A cases.yaml that lost its `cases` list
    is still held to the cases schema."""
    path = own_cases(display)
    if path is None:
        return []
    from engine.routing.cases import CASES_SCHEMA, check_cases_file  # only for sets with cases

    found = check_cases_file(path, snapshot)
    if found is None:
        return read_document(path, CASES_SCHEMA, file=path)[2]
    return found


def _files_of(root: Path, display: str, snapshot: Snapshot | None, caps: Caps) -> int:
    if snapshot is not None:
        return len(snapshot.config.files)
    listed = list_set(root, display, caps)
    return 1 + len(listed.included)


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = MAX_NODES,
    skip_unowned: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> CheckResult:
    """Check every config set found under `paths`; one bad set never hides another's issues.

    A folder stands for every set below it; a file other than engine.yaml (as pre-commit
    passes them) for the whole set it belongs to, each set checked once. A routing cases
    file (a document with a top-level `cases` list) and a labelled corpus (.csv, .jsonl,
    .ndjson) are checked against their set's names, and so is each set's own cases.yaml
    beside its root file; a corpus in no set's folder is checked row by row alone.
    `skip_unowned` ignores files in no set's folder (pre-commit passes every changed file).
    `progress` hears (set, files done, files in the set) as each set loads.
    """
    issues: list[Issue] = []
    caps = Caps(max_bytes, max_nodes)
    loaded: dict[str, tuple[Snapshot | None, str]] = {}
    files = 0
    for given in paths:
        path = os.fspath(given)
        roots, found = _roots(path, skip_unowned=skip_unowned)
        issues += found
        for root, display in roots:
            key = _identity(root)
            if key not in loaded:
                hook = partial(progress, display) if progress is not None else None
                snapshot, found = load_set(root, display, caps=caps, progress=hook,
                                           analyses=vocabulary_warnings)
                issues += found + _own_cases_issues(display, snapshot)
                loaded[key] = (snapshot, display)
                files += _files_of(root, display, snapshot, caps)
            if os.path.basename(path) != ROOT_FILE and os.path.isfile(path):
                issues += _not_included(path, display, loaded[key][0])
    snapshots = tuple(snapshot for snapshot, _ in loaded.values() if snapshot is not None)
    return CheckResult(issues=tuple(sorted(set(issues), key=sort_key)), snapshots=snapshots,
                       sets=len(loaded), files=files)


def load_document(
    path: str | os.PathLike[str],
    schema: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = MAX_NODES,
) -> tuple[Any | None, list[Issue]]:
    """Read, safely parse and validate one YAML/JSON file against a bundled schema.

    `schema` is a file name under schemas/ ("cases.schema.json", "specs/x.json"). Returns
    (plain data, []) or (None, every located issue).
    """
    document, _source, issues = read_document(
        path, schema, max_bytes=max_bytes, max_nodes=max_nodes
    )
    return (document.data if document is not None else None), issues
