"""The parse stage's fast path: plain data from the events of a clean document, in one tight loop.

Most config files use no tags, anchors or odd keys and break no parse rule. For them this
builds the data (strings interned: a 10,000-agent set repeats the same keys and words) and
the root's position, as `engine.config.events.Builder` would without positions. On anything
else it gives up (`Unusual`) and the caller runs the full builder, which owns every rule and
every issue message; this module never reports an issue itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from ruamel.yaml import events

from engine.config.positions import Position
from engine.config.scalars import NumberError, resolve_plain

SPECIAL_START = frozenset("0123456789+-.~nNtTfF")
"""First characters of every plain scalar that may resolve to something other than text."""
INTERN_MAX = 32
"""Strings up to this length are interned (names, keys, enum words); longer text is not."""


class Unusual(Exception):
    """The document needs the full builder: a tag, an anchor or alias, a duplicate, `<<` or
    non-text key, a cap reached, an empty or second document, or a number JSON cannot carry."""


def quick_data(
    stream: Iterable[Any], text: str, *, max_depth: int, max_nodes: int
) -> tuple[Any, Position]:
    """(data, root position) of a clean one-document stream; raises `Unusual` otherwise.

    One loop with local names on purpose: a function call per event is most of what the full
    builder costs, and a 10,000-agent set has about a million events."""
    intern = sys.intern
    scalar = events.ScalarEvent
    start_map, start_seq = events.MappingStartEvent, events.SequenceStartEvent
    ends = (events.MappingEndEvent, events.SequenceEndEvent)
    stack: list[Any] = []  # open containers: a dict or a list
    keys: list[Any] = []  # for each open dict: its pending key (None: expects a key)
    flows: list[bool] = []
    root: Any = None
    where: Position | None = None
    nodes = documents = 0
    for event in stream:
        kind = type(event)
        if kind is scalar:
            if event.tag is not None or event.anchor is not None:
                raise Unusual
            raw = event.value
            if not event.implicit[0] or (raw and raw[0] not in SPECIAL_START):
                value: Any = raw  # quoted, or a plain word that is no number, bool or null
            else:
                try:
                    value = resolve_plain(raw)
                except NumberError:
                    raise Unusual from None
            if type(value) is str and len(value) <= INTERN_MAX:
                value = intern(value)
        elif kind is start_map or kind is start_seq:
            if event.tag is not None or event.anchor is not None or len(stack) >= max_depth:
                raise Unusual
            value = {} if kind is start_map else []
        elif kind in ends:
            value = stack.pop()
            keys.pop()
            flows.pop()
            if stack:
                _attach(stack, keys, value)
            else:
                root = value
            continue
        elif kind is events.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise Unusual
            continue
        elif kind is events.AliasEvent:
            raise Unusual
        else:
            continue
        nodes += 1
        if nodes > max_nodes:
            raise Unusual
        if where is None:
            mark = event.start_mark
            where = (mark.line + 1, mark.column + 1)
        if stack:
            top = stack[-1]
            if type(top) is dict and keys[-1] is None:  # `value` is a key
                if type(value) is not str or value in top or value == "<<":
                    raise Unusual  # a duplicate, a key that is not text, or maybe a merge
                if flows[-1] and text[event.start_mark.index - 1:event.start_mark.index] == "?":
                    raise Unusual  # `{?x: 1}`: read differently by YAML 1.2 editors
                keys[-1] = value
                continue
        if type(value) is dict or type(value) is list:
            stack.append(value)
            keys.append(None)
            flows.append(bool(event.flow_style))
            continue
        if not stack:
            if value is None and raw == "" and event.implicit[0]:
                raise Unusual  # an empty document
            root = value
            continue
        _attach(stack, keys, value)
    if where is None or documents != 1:
        raise Unusual
    return root, where


def _attach(stack: list[Any], keys: list[Any], value: Any) -> None:
    """Put a finished node into the open container (under its pending key for a dict)."""
    top = stack[-1]
    if type(top) is list:
        top.append(value)
    else:
        top[keys[-1]] = value
        keys[-1] = None
