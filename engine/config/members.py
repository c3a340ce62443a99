"""One included file of a set through read -> parse -> validate -> build. Keeping these
per-file results between loads is the reload memory's job (`engine.loading.incremental`).

A `Member` is everything the whole-set stages (merge, link, topology, compile) need from one
file. It never looks at another file: cross-file checks belong to the link stage.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from engine.config.build import LEGACY_TRIGGER, build_agent
from engine.config.codes import internal_issue
from engine.config.include import Included
from engine.config.indentation import merged_items_said
from engine.config.listing import Caps
from engine.config.models import AgentSpec
from engine.config.parse import MAX_ALIAS_NODES, MAX_DEPTH, parse_text, positions_of
from engine.config.payloads import OWN_ISSUES
from engine.config.positions import Document, PathKey, Position, json_path
from engine.config.read import Source, read_source
from engine.config.schemas import SCHEMA_BY_KIND
from engine.config.validate import validate_document
from engine.issues import Issue

log = logging.getLogger("engine.config")


@dataclass(frozen=True, slots=True)
class Member:
    """One file's own result. `document` (and, for an agent, its built `agent`) is None when
    the file has an error of its own; `declares` then holds the names it still shows, so the
    link stage can stay silent about names the broken file may declare."""

    kind: str
    file: str
    relative: str
    digest: bytes | None
    document: Document | None
    issues: tuple[Issue, ...]
    agent: AgentSpec | None = None
    declares: frozenset[str] | None = frozenset()
    """Names a failed file declares; None when they cannot be known (it did not parse)."""

    @property
    def ok(self) -> bool:
        return self.document is not None


def _declared(kind: str, data: Any, issues: list[Issue]) -> frozenset[str] | None:
    """Names a document that failed validation still declares; None when they cannot be read
    (an agent whose name is missing or malformed may be the one every reference means)."""
    if kind == "routing":
        return frozenset()
    if not isinstance(data, dict):
        return None
    if kind == "agents":
        name = data.get("name")
        if not isinstance(name, str) or any(found.json_path == "$.name" for found in issues):
            return None
        return frozenset({name})
    names = data.get("capabilities")
    if not isinstance(names, dict):
        return None
    at_names = {json_path(("capabilities", str(name))) for name in names}
    if any(found.json_path in at_names and found.code == "schema" for found in issues):
        return None  # a malformed name (the schema's propertyNames)
    return frozenset(str(name) for name in names)


def read_member(item: Included, caps: Caps) -> Member:
    """Read one file of the set, then parse, validate and (an agent) build it."""
    source, issues = read_source(item.path, file=item.file, max_bytes=caps.max_bytes)
    if source is None:
        return unreadable(item, issues)
    return checked_member(item, source, content_hash(source), caps)


def unreadable(item: Included, issues: list[Issue]) -> Member:
    """The member of a file that could not be read as a config file."""
    return Member(item.kind, item.file, item.relative, None, None, tuple(issues), declares=None)


def content_hash(source: Source) -> bytes:
    """What a member's `digest` is: the sha256 of the file's bytes."""
    return hashlib.sha256(source.raw).digest()


def checked_member(item: Included, source: Source, digest: bytes, caps: Caps) -> Member:
    """Parse, validate and (an agent) build the text read from one file, whose bytes hash to
    `digest`."""
    try:
        member = _checked(item, source, digest, caps.max_nodes)
        return _with_model(member, item.path, caps.max_nodes)
    except Exception as error:  # a bug in a stage: this file fails, the others are still checked
        log.error("config %s: a stage failed unexpectedly", source.file, exc_info=error)
        return Member(item.kind, source.file, item.relative, digest, None,
                      (internal_issue(source.file, error),), declares=None)


def _checked(item: Included, source: Source, digest: bytes, max_nodes: int) -> Member:
    """Parse and validate one file's text: a member holding its document (and no model)."""
    kind, file, relative = item.kind, source.file, item.relative
    document, issues = parse_text(source.text, file, max_nodes=max_nodes, positions=False)
    if document is None:
        return Member(kind, file, relative, digest, None, tuple(issues), declares=None)
    issues = validate_document(document, SCHEMA_BY_KIND[kind]) or OWN_ISSUES[kind](document)
    if any(found.is_error for found in issues):
        declares = _declared(kind, document.data, issues)
        said = tuple(merged_items_said(issues, source.text))  # in the author's words
        return Member(kind, file, relative, digest, None, said, declares=declares)
    return Member(kind, file, relative, digest, document, tuple(issues))  # warnings only


def _with_model(member: Member, path: str, max_nodes: int) -> Member:
    """A valid agent member with its model built; its document then keeps positions only
    (found again from the file on demand: its text is not kept either)."""
    document, digest = member.document, member.digest
    if member.kind != "agents" or document is None or digest is None:
        return member
    agent = build_agent(document)
    if LEGACY_TRIGGER not in document.data:  # nothing later reads the data: the model has it
        located = partial(_positions_from_file, path, digest, member.file, max_nodes)
        document = Document(document.file, None, document.values, document.keys, located)
    return Member(member.kind, member.file, member.relative, digest, document, member.issues,
                  agent)


def _positions_from_file(
    path: Any, digest: bytes, file: str, max_nodes: int
) -> tuple[dict[PathKey, Position], dict[PathKey, Position]]:
    """Positions of a file read again for an issue (its text is not kept): only when its
    content is still what was checked; else none (issues fall back to the file's start)."""
    source, _ = read_source(path, file=file)
    if source is None or hashlib.sha256(source.raw).digest() != digest:
        return {}, {}
    return positions_of(source.text, file, (MAX_DEPTH, MAX_ALIAS_NODES, max_nodes))
