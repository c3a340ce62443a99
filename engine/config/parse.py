"""Parse stage: YAML 1.2 text -> a `Document` (plain data + a position for every node).

Built directly from ruamel.yaml's event stream (libyaml's C parser when installed), iteratively
(no recursion), by `engine.config.events`, so one pass gives positions and every parse-stage
rule; without positions, a clean document takes the fast path of `engine.config.quick`. It
never constructs objects from tags and never raises on bad input: it returns issues.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.parser import Parser

from engine.config.codes import issue
from engine.config.events import HANDLERS, Builder, Stop
from engine.config.positions import Document, PathKey, Position, root_only
from engine.config.quick import Unusual, quick_data
from engine.config.syntax import hidden_breaks, syntax_issue
from engine.issues import Issue

try:
    from _ruamel_yaml import CParser  # type: ignore[import-not-found]  # ruamel.yaml.clib
except ImportError:  # pragma: no cover - no C extension for this platform
    CParser = None

FAST_PARSER: bool = CParser is not None and YAML(typ="safe").Parser is not Parser
"""True when ruamel.yaml.clib provides the C event parser."""
MAX_DEPTH = 64
MAX_ALIAS_NODES = 10_000
MAX_NODES = 100_000
"""Nodes (scalars, mappings, sequences, aliases) one file may hold; bounds parse time and
memory for a file under the byte cap (a 1 MiB flow list holds 500,000 items)."""


def parse_text(
    text: str,
    file: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_alias_nodes: int = MAX_ALIAS_NODES,
    max_nodes: int = MAX_NODES,
    positions: bool = True,
) -> tuple[Document | None, list[Issue]]:
    """Parse one YAML document; returns (document, []) or (None, issues).

    With ruamel.yaml.clib installed the events come from its C (libyaml) parser, 25x faster;
    any syntax error is then re-parsed by ruamel's pure-Python YAML 1.2 parser, which stays
    the authority for what is valid YAML and how a syntax error is worded and located.

    With `positions=False` only the root's position is recorded (less time, a fraction of the
    memory); the document finds the others by parsing its text again the first time an issue
    needs one. A file with any issue is always parsed with positions. A clean document without
    positions is read by the fast path, which gives up on anything the full builder must see.
    """
    hidden = hidden_breaks(text, file)
    if hidden:
        return None, hidden
    limits = (max_depth, max_alias_nodes, max_nodes)
    if not positions:
        document = _quick(text, file, max_depth, max_nodes) if FAST_PARSER else None
        if document is None:
            document, _ = _parse(text, file, limits, positions=False)
        if document is not None:
            located = partial(positions_of, text, file, limits)
            return replace(document, origin=located), []
    return _parse(text, file, limits, positions=True)


def _quick(text: str, file: str, max_depth: int, max_nodes: int) -> Document | None:
    """The document by the fast path (`engine.config.quick`), None when it needs the full
    builder."""
    parser = CParser(text)
    try:
        stream = iter(parser.get_event, None)
        data, where = quick_data(stream, text, max_depth=max_depth, max_nodes=max_nodes)
    except (Unusual, YAMLError):
        return None
    finally:
        parser.dispose()
    return Document(file, data, *root_only(where))


def positions_of(
    text: str, file: str, limits: tuple[int, int, int] = (MAX_DEPTH, MAX_ALIAS_NODES, MAX_NODES)
) -> tuple[dict[PathKey, Position], dict[PathKey, Position]]:
    """Every position of `text` (empty when it no longer parses)."""
    document, _ = _parse(text, file, limits, positions=True)
    return (document.values, document.keys) if document is not None else ({}, {})


def _parse(
    text: str, file: str, limits: tuple[int, int, int], *, positions: bool
) -> tuple[Document | None, list[Issue]]:
    new_builder = partial(Builder, file, text, *limits, positions)
    builder = new_builder()
    if FAST_PARSER:
        try:
            _feed(builder, _c_events(text))
        except YAMLError:
            builder = new_builder()
        else:
            return _result(builder)
    try:
        _feed(builder, YAML(typ="safe", pure=True).parse(text))
    except YAMLError as error:
        builder.issues.append(syntax_issue(file, text, error))
    return _result(builder)


def _c_events(text: str) -> Iterator[Any]:
    """libyaml's events, straight from the C parser (no `YAML` object per file)."""
    parser = CParser(text)
    try:
        yield from iter(parser.get_event, None)  # None once the stream has ended
    finally:
        parser.dispose()


def _feed(builder: Builder, stream: Iterator[Any]) -> None:
    handlers = HANDLERS
    try:
        for event in stream:
            handler = handlers.get(type(event))
            if handler is not None:
                handler(builder, event)
    except Stop:
        pass


def _result(builder: Builder) -> tuple[Document | None, list[Issue]]:
    file = builder.file
    if not builder.issues and not builder.done:
        builder.issues.append(issue(file, (1, 1), "", "empty-file", "the file holds no document"))
    if builder.issues:
        return None, builder.issues
    return Document(file, builder.root, builder.values, builder.keys), []
