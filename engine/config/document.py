"""One document through read -> parse -> validate: the shared front half of every loader.

Config sets, router test-case files, pump listener files and the spec validator all read
their YAML/JSON through `read_document`; it returns issues and never raises on bad input.
"""

from __future__ import annotations

import os
import sys

from engine.config.indentation import merged_items_said
from engine.config.parse import MAX_NODES, parse_text
from engine.config.positions import Document
from engine.config.read import DEFAULT_MAX_BYTES, Source, read_source, read_stream
from engine.config.validate import validate_document
from engine.issues import Issue

STDIN = "-"


def read_document(
    path: str | os.PathLike[str],
    schema: str | None,
    *,
    file: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_nodes: int = MAX_NODES,
    positions: bool = True,
) -> tuple[Document | None, Source | None, list[Issue]]:
    """Read, parse and (when `schema` names a bundled schema) validate one file (`-`: the
    standard input, named `<stdin>` in issues).

    Returns the document only when it has no issue at all; the source whenever it was read.
    `positions=False` records positions lazily (see `parse_text`).
    """
    if os.fspath(path) == STDIN:
        source, issues = read_stream(sys.stdin.buffer, max_bytes=max_bytes)
    else:
        source, issues = read_source(path, file=file, max_bytes=max_bytes)
    if source is None:
        return None, None, issues
    document, issues = parse_text(
        source.text, source.file, max_nodes=max_nodes, positions=positions
    )
    if document is None:
        return None, source, issues
    if schema is not None:
        issues = validate_document(document, schema)
        if issues:
            return None, source, merged_items_said(issues, source.text)
    return document, source, []

