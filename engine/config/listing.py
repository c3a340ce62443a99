"""Listing a config set: read its root file and expand the includes into the set's files.

The first stage of `engine.loading.pipeline`; it reads the root file only, never a member.
A root that parsed but broke its schema still lists what it includes, and keeps what of it
validated (`salvage`), so one typo in engine.yaml hides no other file's issues.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath

from engine.config.document import read_document
from engine.config.include import (
    Included,
    expand_includes,
    incomplete_kinds,
    leads_outside,
    outside_issue,
)
from engine.config.parse import MAX_NODES
from engine.config.positions import Document
from engine.config.read import DEFAULT_MAX_BYTES, Source
from engine.config.salvage import Salvaged, salvage
from engine.config.schemas import ENGINE_SCHEMA
from engine.issues import Issue


@dataclass(frozen=True, slots=True)
class Caps:
    """Per-file caps of the read and parse stages, the same for `check`, `Engine()` and reloads."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_nodes: int = MAX_NODES


DEFAULT_CAPS = Caps()


@dataclass(frozen=True, slots=True)
class SetFiles:
    """The files of one set as its root lists them: the root document and source (None when
    it could not be read) and every included file, with the issues found on the way."""

    root: Document | None
    source: Source | None
    included: list[Included]
    issues: list[Issue]
    outside: bool = False
    """The root file itself leads outside its folder: nothing of the set may be read."""
    salvaged: Salvaged | None = None
    """For a root that broke its schema: what of it validated, for the cross-file checks."""

    @property
    def incomplete(self) -> frozenset[str]:
        """Kinds some of whose files the include globs may have missed."""
        return incomplete_kinds(self.issues)


def list_set(
    engine_path: Path, display: str, caps: Caps, *, scanned: set[str] | None = None
) -> SetFiles:
    """Read the root file and expand its includes; reads no other file. `scanned` (when
    given) receives every folder the include globs looked into: what may change the
    listing besides the root file."""
    return _list(engine_path, display, caps, scanned if scanned is not None else set())


def _list(engine_path: Path, display: str, caps: Caps, scanned: set[str]) -> SetFiles:
    real = leads_outside(engine_path, engine_path.parent)
    if real is not None:
        return SetFiles(None, None, [], [outside_issue(display, real)], outside=True)
    root, source, issues = read_document(
        engine_path, ENGINE_SCHEMA, file=display, max_bytes=caps.max_bytes,
        max_nodes=caps.max_nodes,
    )
    if root is None:
        return _listed_anyway(engine_path, display, caps, (source, issues), scanned)
    included, issues = expand_includes(
        root, engine_path.parent, str(PurePath(display).parent), scanned=scanned
    )
    return SetFiles(root, source, included, issues)


def _listed_anyway(
    engine_path: Path, display: str, caps: Caps, read: tuple[Source | None, list[Issue]],
    scanned: set[str],
) -> SetFiles:
    """The files a root that parsed but broke its schema still includes, and what of it
    validated, so a typo in engine.yaml (`polices:`) hides no other file's issues; no file
    when the root did not parse or its `include` section is itself in error."""
    source, issues = read
    nothing = SetFiles(None, source, [], issues)
    if any(found.json_path.startswith("$.include") for found in issues):
        return nothing
    root, _source, _issues = read_document(
        engine_path, None, file=display, max_bytes=caps.max_bytes, max_nodes=caps.max_nodes
    )
    if root is None or not isinstance(root.data, dict):
        return nothing
    if not isinstance(root.data.get("include"), dict):
        return nothing
    included, found = expand_includes(
        root, engine_path.parent, str(PurePath(display).parent), scanned=scanned
    )
    return SetFiles(None, source, included, issues + found, salvaged=salvage(root, issues))
