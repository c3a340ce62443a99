"""Hot reload: build a new Snapshot off to the side, then swap one reference; a failing reload
changes nothing (the last good snapshot keeps serving) and unchanged content is skipped by hash.
Watching lives in `watch.py`; this module never touches an event loop."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from engine.config.snapshot import Snapshot
from engine.errors import ConfigError
from engine.issues import Issue
from engine.runtime.hooks import Event, Hooks

log = logging.getLogger("engine.reload")

Outcome = Literal["applied", "unchanged", "rejected"]
Loader = Callable[[Path], Snapshot]
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class ReloadResult:
    """One reload attempt: what happened and which version serves afterwards."""

    outcome: Outcome
    version: str
    previous_version: str
    issues: tuple[Issue, ...] = ()
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class ReloadStats:
    """Counters for dashboards: reloads by result, and the state of the last one."""

    applied: int = 0
    unchanged: int = 0
    rejected: int = 0
    last_ok: bool = True
    last_success_at: float | None = None
    version: str = ""
    last_issues: tuple[Issue, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class _Candidate:
    generation: int
    fingerprint: str
    snapshot: Snapshot | None
    issues: tuple[Issue, ...]
    duration_s: float


def config_root(path: str | Path) -> Path:
    """The folder that holds a config set: `path` itself, or the folder of a root file."""
    path = Path(path)
    return path if path.is_dir() else path.parent


def _config_files(root: Path) -> Iterator[Path]:
    """Every config file below `root` in a stable order, following symlinks (loops cut).
    Entries named `..*` are skipped: they are the hidden targets of a Kubernetes ConfigMap's
    symlinks, reached through the visible links."""
    seen: set[tuple[int, int]] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        stat = os.stat(folder)
        if (stat.st_dev, stat.st_ino) in seen:
            dirs[:] = []
            continue
        seen.add((stat.st_dev, stat.st_ino))
        dirs[:] = sorted(d for d in dirs if not d.startswith(".."))
        for name in sorted(files):
            if not name.startswith("..") and name.endswith(CONFIG_SUFFIXES):
                yield Path(folder, name)


def _stat_key(path: Path) -> bytes:
    try:
        stat = path.stat()
    except OSError:
        return b"gone"
    return f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}".encode()


def fingerprint(root: Path) -> str:
    """Hash of every config file below `root`: relative names and bytes."""
    return _scan(root)[0]


def _scan(root: Path) -> tuple[str, str]:
    """(content hash, stat hash). The stat hash (inode, size, mtime) catches a file rewritten
    while a build read it, even when its content ends where it started (A -> B -> A)."""
    content, stats = hashlib.sha256(), hashlib.sha256()
    for path in _config_files(root):
        stats.update(bytes(path) + b"\0" + _stat_key(path) + b"\0")
        try:
            data = path.read_bytes()
        except OSError:  # deleted or half-swapped between listing and reading
            data = b"\0unreadable"
        content.update(str(path.relative_to(root)).encode() + b"\0" + data + b"\0")
    return content.hexdigest(), stats.hexdigest()


def _stats_only(root: Path) -> str:
    stats = hashlib.sha256()
    for path in _config_files(root):
        stats.update(bytes(path) + b"\0" + _stat_key(path) + b"\0")
    return stats.hexdigest()


def _files_state(root: Path) -> tuple[str, str]:
    try:
        return _scan(root) if root.is_dir() else ("missing", "missing")
    except OSError:  # the folder went away while it was being read
        return ("unreadable", "unreadable")


def _stats_state(root: Path) -> str:
    try:
        return _stats_only(root) if root.is_dir() else "missing"
    except OSError:
        return "unreadable"


def _default_loader(path: Path) -> Snapshot:
    from engine.config.loader import load_config

    return load_config(path)


class Reloader:
    """Holds the serving snapshot of one config set and replaces it only with a valid one.

    The first load happens in the constructor and raises `ConfigError` if the config is
    invalid: a runtime must not start on a broken config. `current` is a plain attribute read,
    safe from any thread; reloads are serialized.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        load: Loader | None = None,
        hooks: Hooks | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.root = config_root(self.path)
        self._load = load or _default_loader
        self._hooks = hooks or Hooks()
        self._clock = clock
        self._lock = threading.Lock()
        self._generation = 0  # builds started; a build older than the last applied one loses
        self._applied_generation = 0
        files, stats = _files_state(self.root)
        self._current = self._load(self.path)
        unstable = _stats_state(self.root) != stats
        self._last_fingerprint = "changed-during-build" if unstable else files
        self._stats = ReloadStats(last_success_at=clock(), version=self._current.version)

    @property
    def current(self) -> Snapshot:
        return self._current

    @property
    def hooks(self) -> Hooks:
        return self._hooks

    @property
    def stats(self) -> ReloadStats:
        return self._stats

    def build(self, *, force: bool = False) -> _Candidate | None:
        """Parse, validate and compile the files as they are now. Pure with respect to the
        serving state, so it may run on a worker thread. None when nothing changed."""
        started = time.perf_counter()
        with self._lock:
            self._generation += 1
            generation = self._generation
        files, stats = _files_state(self.root)
        if files == self._last_fingerprint and not force:
            return None
        snapshot: Snapshot | None
        try:
            snapshot = self._load(self.path)
            issues = snapshot.warnings
        except ConfigError as error:
            snapshot, issues = None, error.issues
        except OSError as error:  # a file vanished between the loader's listing and reading
            snapshot = None
            issues = (Issue(str(self.path), 0, 0, "", "unreadable", f"cannot read: {error}"),)
        if _stats_state(self.root) != stats:
            files = "changed-during-build"  # never remembered as seen: the next check rebuilds
        return _Candidate(generation, files, snapshot, issues, time.perf_counter() - started)

    def apply(self, candidate: _Candidate | None) -> ReloadResult:
        """Swap in a built candidate (or record why not). Cheap: safe on an event loop."""
        with self._lock:
            result = self._swap(candidate)
            self._stats = _count(self._stats, result, now=self._clock())
        self._report(result)
        return result

    def reload(self, *, force: bool = False) -> ReloadResult:
        """Build and apply in the calling thread (the explicit `engine.reload()`)."""
        return self.apply(self.build(force=force))

    def _swap(self, candidate: _Candidate | None) -> ReloadResult:
        previous = self._current.version
        if candidate is None or candidate.generation < self._applied_generation:
            return ReloadResult("unchanged", previous, previous)  # nothing new, or overtaken
        self._applied_generation = candidate.generation
        self._last_fingerprint = candidate.fingerprint
        if candidate.snapshot is None:
            return ReloadResult(
                "rejected", previous, previous, candidate.issues, candidate.duration_s
            )
        if candidate.snapshot.version == previous:
            return ReloadResult("unchanged", previous, previous)
        self._current = candidate.snapshot
        return ReloadResult(
            "applied", candidate.snapshot.version, previous, candidate.issues,
            candidate.duration_s,
        )

    def _report(self, result: ReloadResult) -> None:
        if result.outcome == "applied":
            log.info("config %s: applied version %s", self.path, result.version)
            self._hooks.emit(Event("config_reloaded", {"result": result}))
        elif result.outcome == "rejected":
            log.warning(
                "config %s: reload rejected, still serving %s:\n%s",
                self.path, result.version, "\n".join(str(i) for i in result.issues[:20]),
            )
            self._hooks.emit(Event("config_rejected", {"result": result}))


def _count(stats: ReloadStats, result: ReloadResult, *, now: float) -> ReloadStats:
    if result.outcome == "applied":
        return replace(
            stats, applied=stats.applied + 1, last_ok=True, last_success_at=now,
            version=result.version, last_issues=result.issues,
        )
    if result.outcome == "rejected":
        return replace(
            stats, rejected=stats.rejected + 1, last_ok=False, last_issues=result.issues
        )
    return replace(stats, unchanged=stats.unchanged + 1)
