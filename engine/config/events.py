"""Builds a `Document` from YAML parse events: the data, a position for every node (or only the
root's), and the parse-stage rules checked on the way (duplicate keys, the tag whitelist, the
alias-expansion, node and depth caps, numbers JSON cannot carry, ambiguous flow and merge
keys).

Fed by `engine.config.parse`, one event at a time; it never reads text or calls a parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import events

from engine.config.codes import issue
from engine.config.positions import PathKey, Position, json_path
from engine.config.scalars import (
    ALLOWED_TAGS,
    YAML_TAG,
    NumberError,
    TagValueError,
    resolve_plain,
    resolve_tagged,
)
from engine.config.syntax import MERGE_KEY, MERGE_KEY_MESSAGE, ambiguous_key
from engine.issues import Issue


class Stop(Exception):
    """Parsing cannot go on; the issue explaining why is already recorded."""


@dataclass(slots=True)
class _Frame:
    value: dict[str, Any] | list[Any]
    path: PathKey
    anchor: str | None
    size: int = 1
    key: str | None = None
    key_pos: Position = (0, 0)
    has_key: bool = False
    flow: bool = False


@dataclass(slots=True)
class Builder:
    file: str
    text: str
    max_depth: int
    max_alias_nodes: int
    max_nodes: int
    positions: bool = True
    nodes: int = 0
    issues: list[Issue] = field(default_factory=list)
    values: dict[PathKey, Position] = field(default_factory=dict)
    keys: dict[PathKey, Position] = field(default_factory=dict)
    anchors: dict[str, tuple[Any, int]] = field(default_factory=dict)
    stack: list[_Frame] = field(default_factory=list)
    expanded: int = 0
    documents: int = 0
    root: Any = None
    done: bool = False

    def fail(self, position: Position, code: str, message: str, *, stop: bool = True) -> None:
        path = json_path(self.child_path())
        self.issues.append(issue(self.file, position, path, code, message))
        if stop:
            raise Stop

    def child_path(self) -> PathKey:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.value, list):
            return (*top.path, len(top.value))
        return (*top.path, top.key if top.key is not None else "")

    def count(self, position: Position) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self.fail(position, "too-many-nodes", f"more than {self.max_nodes} YAML nodes")

    def check_tag(self, tag: object, position: Position) -> None:
        if tag is not None and str(tag) not in ALLOWED_TAGS:
            shown = str(tag).replace(YAML_TAG, "!!")
            self.fail(position, "forbidden-tag", f"tag {shown} is not allowed in config files")

    def add(self, value: Any, size: int, position: Position, anchor: str | None) -> None:
        """Attach a finished node to its parent (or make it the root)."""
        if anchor is not None:
            self.anchors[anchor] = (value, size)
        if not self.stack:
            self.root = value
            self.done = True
            return
        top = self.stack[-1]
        top.size += size
        if isinstance(top.value, list):
            top.value.append(value)
            return
        if not top.has_key:
            self.set_key(top, value, position)
            return
        self.set_value(top, value)

    def set_key(self, top: _Frame, value: Any, position: Position) -> None:
        if isinstance(value, (dict, list)):
            self.fail(position, "complex-key", "mapping keys must be plain scalars")
        key = value if isinstance(value, str) else _scalar_text(value)
        top.has_key, top.key, top.key_pos = True, key, position
        if key in top.value:
            path: PathKey = (*top.path, key)
            first = self.keys.get(path, (0, 0))
            self.fail(
                position,
                "duplicate-key",
                f"duplicate key {key!r} (first defined at line {first[0]})",
                stop=False,
            )

    def set_value(self, top: _Frame, value: Any) -> None:
        key = top.key if top.key is not None else ""
        if isinstance(top.value, dict) and key not in top.value:
            if self.positions:
                path: PathKey = (*top.path, key)
                self.keys[path] = top.key_pos
            top.value[key] = value
        top.has_key, top.key = False, None


def _scalar_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_NOWHERE: Position = (0, 0)


def _pos(event: Any) -> Position:
    mark = event.start_mark
    return (mark.line + 1, mark.column + 1)


def _where(builder: Builder, event: Any) -> Position:
    """The event's position; without positions only the root's is worth its cost (any issue
    sends the file through a second, positioned parse)."""
    return _pos(event) if builder.positions or not builder.stack else _NOWHERE


def _value(builder: Builder, event: Any, position: Position) -> Any:
    try:
        if event.tag is None and event.implicit[0]:
            return resolve_plain(event.value)
        if event.tag is None or str(event.tag) == "!":
            return event.value
        return resolve_tagged(str(event.tag), event.value)
    except TagValueError as error:
        builder.fail(position, "type", str(error))
    except NumberError as error:
        builder.fail(position, "bad-number", str(error), stop=False)
    return None


def _ambiguous_key(builder: Builder, event: Any, position: Position) -> None:
    top = builder.stack[-1]
    if isinstance(top.value, dict) and not top.has_key:
        message = ambiguous_key(builder.text, event.start_mark.index, event.value)
        if message is not None:
            where, path = (position[0], position[1] - 1), json_path(top.path)
            builder.issues.append(issue(builder.file, where, path, "yaml-ambiguous", message))


def _merge_key(builder: Builder, position: Position) -> None:
    top = builder.stack[-1]
    if isinstance(top.value, dict) and not top.has_key:
        path = json_path((*top.path, MERGE_KEY))
        builder.issues.append(issue(builder.file, position, path, "yaml-ambiguous",
                                    MERGE_KEY_MESSAGE))


def _on_scalar(builder: Builder, event: Any) -> None:
    position = _where(builder, event)
    builder.count(position)
    if event.tag is not None:
        builder.check_tag(event.tag, position)
    if builder.stack:
        if builder.stack[-1].flow:
            _ambiguous_key(builder, event, position)
        if event.value == MERGE_KEY and event.implicit[0] and event.tag is None:
            _merge_key(builder, position)
    value = _value(builder, event, position)
    if not builder.stack and value is None and event.value == "" and event.implicit[0]:
        builder.fail(position, "empty-file", "the document is empty")
    record(builder, position)
    builder.add(value, 1, position, event.anchor)


def record(builder: Builder, position: Position) -> None:
    top = builder.stack[-1] if builder.stack else None
    if top is not None and not builder.positions:
        return
    if top is None or isinstance(top.value, list) or top.has_key:
        builder.values[builder.child_path()] = position


def _on_start(builder: Builder, event: Any, container: dict[str, Any] | list[Any]) -> None:
    position = _where(builder, event)
    builder.count(position)
    builder.check_tag(event.tag, position)
    if len(builder.stack) >= builder.max_depth:
        builder.fail(position, "too-deep", f"nesting deeper than {builder.max_depth} levels")
    top = builder.stack[-1] if builder.stack else None
    if top is not None and isinstance(top.value, dict) and not top.has_key:
        builder.fail(position, "complex-key", "mapping keys must be plain scalars")
    path = builder.child_path()
    record(builder, position)
    builder.stack.append(_Frame(container, path, event.anchor, flow=bool(event.flow_style)))


def _on_end(builder: Builder, event: Any) -> None:
    frame = builder.stack.pop()
    builder.add(frame.value, frame.size, builder.values.get(frame.path, (0, 0)), frame.anchor)


def _on_alias(builder: Builder, event: Any) -> None:
    position = _where(builder, event)
    builder.count(position)
    if event.anchor not in builder.anchors:
        builder.fail(position, "yaml-syntax", f"alias *{event.anchor} names no earlier anchor")
    value, size = builder.anchors[event.anchor]
    builder.expanded += size
    if builder.expanded > builder.max_alias_nodes:
        builder.fail(
            position,
            "alias-limit",
            f"aliases expand to more than {builder.max_alias_nodes} nodes",
        )
    record(builder, position)
    builder.add(value, size, position, None)


def _on_document(builder: Builder, event: Any) -> None:
    builder.documents += 1
    if builder.documents > 1:
        builder.fail(_pos(event), "multi-document", "only one YAML document is allowed here")


HANDLERS: dict[type, Callable[[Builder, Any], None]] = {
    events.ScalarEvent: _on_scalar,
    events.MappingStartEvent: lambda builder, event: _on_start(builder, event, {}),
    events.SequenceStartEvent: lambda builder, event: _on_start(builder, event, []),
    events.MappingEndEvent: _on_end,
    events.SequenceEndEvent: _on_end,
    events.AliasEvent: _on_alias,
    events.DocumentStartEvent: _on_document,
}
