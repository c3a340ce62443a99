"""One config set through every stage: read -> parse -> validate -> build -> link -> compile.

The single code path used by `handoff check`, engine start-up and hot reload. It returns every
issue of every file of the set and the Snapshot when no error was found; it never raises on
bad input.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from pydantic import ValidationError

from engine.config.build import build_config
from engine.config.codes import issue
from engine.config.document import read_document
from engine.config.examples_check import contradicting_examples
from engine.config.include import Included, expand_includes, leads_outside, outside_issue
from engine.config.link import link_config
from engine.config.parse import MAX_NODES
from engine.config.positions import Document, PathKey, json_path
from engine.config.read import DEFAULT_MAX_BYTES, Source
from engine.config.schemas import ENGINE_SCHEMA, SCHEMA_BY_KIND
from engine.config.snapshot import Snapshot, compile_snapshot
from engine.config.topology import topology_warnings
from engine.issues import Issue, has_errors, sort_key
from engine.validation.audit import schema_findings
from engine.validation.metaschema import schema_error


def content_version(files: Iterable[tuple[str, bytes]]) -> str:
    """First 16 hex digits of sha256 over the sorted (relative path, bytes) of every file."""
    digest = hashlib.sha256()
    for relative, raw in sorted(files):
        digest.update(relative.encode("utf-8") + b"\0")
        digest.update(len(raw).to_bytes(8, "big") + raw)
    return digest.hexdigest()[:16]


_FINDING_CODES = {"ref": "schema-ref", "pattern": "unsupported-pattern"}


def payload_schema_issues(document: Document) -> list[Issue]:
    """`accepts.payload_schema` of an agent document must be a valid JSON Schema whose refs
    resolve inside it and whose patterns run in linear time."""
    schema = document.data.get("accepts", {}).get("payload_schema")
    if schema is None:
        return []
    base = ("accepts", "payload_schema")
    found = [(code, (*base, *where), message) for code, where, message in _schema_problems(schema)]
    return [
        issue(document.file, document.locate(path), json_path(path), code, message)
        for code, path, message in found
    ]


def _schema_problems(schema: Any) -> list[tuple[str, PathKey, str]]:
    error = schema_error(schema)
    if error is not None:
        return [("invalid-payload-schema", error[0], f"not a valid JSON Schema: {error[1]}")]
    return [
        (_FINDING_CODES[finding.kind], finding.path, finding.message)
        for finding in schema_findings(schema)
    ]


@dataclass(frozen=True, slots=True)
class Caps:
    """Per-file caps of the read and parse stages, the same for `check`, `Engine()` and reloads."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_nodes: int = MAX_NODES


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


def list_set(engine_path: Path, display: str, caps: Caps) -> SetFiles:
    """Read the root file and expand its includes; reads no other file."""
    real = leads_outside(engine_path, engine_path.parent)
    if real is not None:
        return SetFiles(None, None, [], [outside_issue(display, real)], outside=True)
    root, source, issues = read_document(
        engine_path, ENGINE_SCHEMA, file=display, max_bytes=caps.max_bytes,
        max_nodes=caps.max_nodes,
    )
    if root is None:
        return SetFiles(None, source, [], issues)
    included, issues = expand_includes(root, engine_path.parent, str(PurePath(display).parent))
    return SetFiles(root, source, included, issues)


def _read_members(
    included: list[Included], caps: Caps
) -> tuple[dict[str, list[Document]], list[tuple[str, bytes]], list[Issue]]:
    """Read, parse and validate every included file: documents by kind, hash input, issues."""
    documents: dict[str, list[Document]] = {}
    hashed: list[tuple[str, bytes]] = []
    issues: list[Issue] = []
    for item in included:
        document, source, found = read_document(
            item.path, SCHEMA_BY_KIND[item.kind], file=item.file, max_bytes=caps.max_bytes,
            max_nodes=caps.max_nodes, positions=False,
        )
        issues += found
        if source is not None:
            hashed.append((item.relative, source.raw))
        if document is not None:
            if item.kind == "agents":
                issues += payload_schema_issues(document)
            documents.setdefault(item.kind, []).append(document)
    return documents, hashed, issues


def load_set(
    engine_path: Path, display: str, *, caps: Caps = Caps()
) -> tuple[Snapshot | None, list[Issue]]:
    """Load the set rooted at `engine_path`; `display` is its name in issues."""
    listed = list_set(engine_path, display, caps)
    root, source, included, issues = listed.root, listed.source, listed.included, listed.issues
    if root is None or source is None:
        return None, issues
    documents, hashed, found = _read_members(included, caps)
    issues += found
    if has_errors(issues):
        return None, sorted(issues, key=sort_key)
    files = (display, *(item.file for item in included))
    try:
        config, locator, issues = build_config(root, documents, files=files)
    except ValidationError as error:  # the schemas should make this unreachable
        message = f"the models refused data the schemas accepted: {error}"
        return None, [issue(display, (0, 0), "", "schema", message)]
    issues += link_config(config, locator)
    if has_errors(issues):
        return None, sorted(issues, key=sort_key)
    found = [*issues, *topology_warnings(config, locator), *contradicting_examples(config, locator)]
    warnings = tuple(sorted(found, key=sort_key))
    version = content_version([(engine_path.name, source.raw), *hashed])
    snapshot = compile_snapshot(config, version=version, root=display, warnings=warnings)
    return snapshot, list(warnings)
