"""Values as messages quote them: `repr`, cut to a few dozen characters in time bounded by the
cut however large the value; `quoted` makes a value quote itself that way. Never validates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

SHOWN_CHARS = 120
"""Longest quote of a value (or of a schema part) in a message."""
_HUGE_INT_BITS = 1024


def short_repr(value: Any, limit: int = SHOWN_CHARS) -> str:
    """`repr(value)`, or its first `limit - 3` characters and `...` when it is longer."""
    parts: list[str] = []
    size = 0
    for part in _pieces(value, limit):
        parts.append(part)
        size += len(part)
        if size > limit:
            break
    text = "".join(parts)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pieces(value: Any, limit: int) -> Iterator[str]:
    """The repr of `value` in pieces; a consumer stops once it has enough, so no piece is
    longer than about `limit` and nesting goes at most `limit` levels deep before it stops."""
    if isinstance(value, str):
        yield str.__repr__(value[: limit + 1])
    elif isinstance(value, Mapping):
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield ", " if index else ""
            yield from _pieces(key, limit)
            yield ": "
            yield from _pieces(item, limit)
        yield "}"
    elif isinstance(value, list | tuple):
        yield "[" if isinstance(value, list) else "("
        for index, item in enumerate(value):
            yield ", " if index else ""
            yield from _pieces(item, limit)
        yield "]" if isinstance(value, list) else ",)" if len(value) == 1 else ")"
    elif isinstance(value, int) and not isinstance(value, bool) and (
        value.bit_length() > _HUGE_INT_BITS
    ):
        yield f"<integer of {value.bit_length()} bits>"
    else:
        yield repr(value)[: limit + 1]


class _Text(str):
    __slots__ = ()

    def __repr__(self) -> str:
        return short_repr(str.__str__(self))


class _Object(dict[Any, Any]):
    __slots__ = ()

    def __repr__(self) -> str:
        return short_repr(self)


class _Array(list[Any]):
    __slots__ = ()

    def __repr__(self) -> str:
        return short_repr(self)


class _Integer(int):
    """An integer too long to print (`repr` raises past Python's digit limit), quoted by size."""

    __slots__ = ()

    def __repr__(self) -> str:
        return short_repr(int(self))


def _huge(value: Any) -> bool:
    return type(value) is int and value.bit_length() > _HUGE_INT_BITS


def quoted(value: Any, *, read: Callable[[Any], None] = lambda value: None) -> Any:
    """A copy of `value` whose strings, mappings, arrays and integers too long to print (as
    `str`, `dict`, `list` and `int` subclasses, equal to the originals) quote themselves with
    `short_repr`. `read` is told of each string and container before it is copied (it may stop
    the copy by raising)."""
    if isinstance(value, str):
        read(value)
        return _Text(value)
    if isinstance(value, Mapping):
        read(value)
        return _Object((quoted(key, read=read), quoted(item, read=read))
                       for key, item in value.items())
    if isinstance(value, list | tuple):
        read(value)
        return _Array(quoted(item, read=read) for item in value)
    return _Integer(value) if _huge(value) else value
