"""Hot reload: build a new Snapshot off to the side, then swap one reference; a failing reload
changes nothing (the last good snapshot keeps serving) and unchanged content is skipped by hash.
Watching lives in `watch.py`; this module never touches an event loop."""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from engine.config.codes import internal_issue
from engine.config.heap import collector_paused
from engine.errors import ConfigError
from engine.issues import Issue
from engine.loading.incremental.loader import load_again
from engine.loading.incremental.look import Look, Looks
from engine.loading.incremental.memory import ReloadMemory
from engine.routing.snapshot import Snapshot
from engine.runtime.hooks import Event, Hooks
from engine.runtime.settle import wait_quiet

log = logging.getLogger("engine.reload")

Outcome = Literal["applied", "unchanged", "rejected"]
Loader = Callable[[Path], Snapshot]
MAX_SETTLE_WAIT_S = 2.0
"""How long one build waits for files that keep changing before it gives up (the next change
or poll tries again); longer when the quiet period itself is longer."""
MIN_LOADS = 2
"""Loads one build makes before that bound may end it: an edit that races one load is always
built by the next, however long the first took on a busy machine."""


@dataclass(frozen=True, slots=True)
class ReloadResult:
    """One reload attempt: what happened and which version serves afterwards."""

    outcome: Outcome
    version: str
    previous_version: str
    issues: tuple[Issue, ...] = ()
    duration_s: float = 0.0
    rebuilt: bool = False
    """For "unchanged": the files were read and validated again and equal the serving
    version (an edit undone after a rejection), not merely skipped."""


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


class Reloader:
    """Holds the serving snapshot of one config set and replaces it only with a valid one.

    The first load happens in the constructor and raises `ConfigError` if the config is
    invalid: a runtime must not start on a broken config. `current` is a plain attribute read,
    safe from any thread; reloads are serialized. Without `load`, each load is `load_again`
    with this reloader's memory and the look just taken (only what changed is redone).
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
        self._memory = ReloadMemory()
        self._load = load
        self._hooks = hooks or Hooks()
        self._clock = clock
        self._lock = threading.Lock()
        self._generation = 0  # builds started; a build older than the last applied one loses
        self._applied_generation = 0
        self._looks = Looks(self.path, self._memory)
        seen = self._looks.take()
        with collector_paused(freeze=True):
            self._current = self._loaded(seen).warm()
        before, after = seen.state(), self._looks.take().state()
        self._folders = after.folders
        unstable = after.stats != before.stats
        self._last_fingerprint = "changed-during-build" if unstable else before.content
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

    @property
    def folders(self) -> tuple[Path, ...]:
        """The folders holding the set's files as last seen (the root first): what to watch."""
        return (self.root, *(folder for folder in self._folders if folder != self.root))

    def build(
        self, *, force: bool = False, settle_s: float = 0.0,
        changed: Collection[str] | None = None,
    ) -> _Candidate | None:
        """Parse, validate and compile the files, and return the build once none of them
        changed for `settle_s` seconds (the wait overlaps the build). Pure with respect to the
        serving state, so it may run on a worker thread. None when nothing changed, or when
        the files kept changing (the next check tries again): a build whose files changed
        while it read them is never returned. `changed`: the absolute paths of every file
        changed since the last build (a watcher's report); only those are looked at when
        that is enough to know the set (None: look at every file)."""
        started = time.perf_counter()
        with self._lock:
            self._generation += 1
            generation = self._generation
        try:
            return self._build(generation, started, force, settle_s, changed)
        except Exception as error:  # a bug in a stage: a rejected build, the watch goes on
            issues = (self._internal(error),)
            return _Candidate(generation, "", None, issues, time.perf_counter() - started)

    def _build(
        self, generation: int, started: float, force: bool, settle_s: float,
        changed: Collection[str] | None,
    ) -> _Candidate | None:
        deadline = time.monotonic() + max(MAX_SETTLE_WAIT_S, 4 * settle_s)
        seen = self._looks.take(changed)
        state = seen.state()
        for loads in itertools.count(1):
            self._folders = state.folders
            if state.content == self._last_fingerprint and not force:
                return None
            snapshot, issues = self._try_load(seen)
            bound = deadline if loads >= MIN_LOADS else math.inf  # a wait is at most settle_s
            if not wait_quiet(state, settle_s, deadline=bound):
                break
            seen = self._looks.take(changed)
            again = seen.state()
            if again.stats == state.stats:
                duration = time.perf_counter() - started
                return _Candidate(generation, state.content, snapshot, issues, duration)
            state = again
            if loads >= MIN_LOADS and time.monotonic() > deadline:
                break
        log.info("config %s: files still changing; still serving %s", self.path,
                 self._current.version)
        return None

    def _loaded(self, seen: Look) -> Snapshot:
        """The set loaded by the given loader, or again with the memory and the look `seen`."""
        if self._load is not None:
            return self._load(self.path)
        return load_again(self._memory, self.path, seen)

    def _try_load(self, seen: Look) -> tuple[Snapshot | None, tuple[Issue, ...]]:
        try:
            with collector_paused(freeze=True):
                snapshot = self._loaded(seen).warm()
        except ConfigError as error:
            if any(found.code == "internal-error" for found in error.issues):
                self._forget()
            return None, error.issues
        except OSError as error:  # a file vanished between the loader's listing and reading
            return None, (Issue(str(self.path), 0, 0, "", "unreadable", f"cannot read: {error}"),)
        except Exception as error:  # a bug in a loader: the same as a bug in a stage
            return None, (self._internal(error),)
        return snapshot, snapshot.warnings

    def _internal(self, error: Exception) -> Issue:
        """An unexpected exception of a reload as the issue that rejects it. What the reload
        memory kept is dropped: the next reload starts cold."""
        log.error("config %s: reload failed unexpectedly", self.path, exc_info=error)
        self._forget()
        return internal_issue(str(self.path), error)

    def _forget(self) -> None:
        self._memory.clear()
        self._looks.forget()

    def failed(self, error: Exception) -> ReloadResult:
        """Report a reload that raised outside its build (a watcher calls this, then goes on
        watching): a rejected result, counted and reported like any other."""
        previous = self._current.version
        result = ReloadResult("rejected", previous, previous, (self._internal(error),))
        with self._lock:
            self._stats = _count(self._stats, result, now=self._clock())
            serving = self._current
        self._report(result, serving)
        return result

    def apply(self, candidate: _Candidate | None) -> ReloadResult:
        """Swap in a built candidate (or record why not). Cheap: safe on an event loop."""
        with self._lock:
            result = self._swap(candidate)
            self._stats = _count(self._stats, result, now=self._clock())
            serving = self._current
        self._report(result, serving)
        return result

    def reload(
        self, *, force: bool = False, settle_s: float = 0.0,
        changed: Collection[str] | None = None,
    ) -> ReloadResult:
        """Build and apply in the calling thread (the explicit `engine.reload()`)."""
        return self.apply(self.build(force=force, settle_s=settle_s, changed=changed))

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
            return ReloadResult("unchanged", previous, previous, candidate.issues,
                                candidate.duration_s, rebuilt=True)
        self._current = candidate.snapshot
        return ReloadResult(
            "applied", candidate.snapshot.version, previous, candidate.issues,
            candidate.duration_s,
        )

    def _report(self, result: ReloadResult, serving: Snapshot) -> None:
        """Log and emit a reload that changed something, with the snapshot serving right after
        it (a hook reading `current` instead could see a later reload's)."""
        if result.outcome == "applied":
            log.info("config %s: applied version %s", self.path, result.version)
            self._hooks.emit(Event("config_reloaded", {"result": result, "snapshot": serving}))
        elif result.outcome == "rejected":
            log.warning(
                "config %s: reload rejected, still serving %s:\n%s",
                self.path, result.version, "\n".join(str(i) for i in result.issues[:20]),
            )
            self._hooks.emit(Event("config_rejected", {"result": result, "snapshot": serving}))


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
    if result.rebuilt:  # the files are good again: the last reload did not fail
        return replace(stats, unchanged=stats.unchanged + 1, last_ok=True, last_issues=())
    return replace(stats, unchanged=stats.unchanged + 1)
