"""Where each node of a parsed document sits in its file, and JSON-path spelling of node paths.

A `Document` is the parse stage's output: plain data plus a position for every node. It is the
raw shape of one file and never leaves the loader; later stages receive typed models.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

PathKey = tuple["str | int", ...]
Position = tuple[int, int]
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


def json_path(path: Iterable[str | int]) -> str:
    """`("rules", 2, "to")` -> `$.rules[2].to`; odd keys are quoted: `$['a b']`."""
    parts = ["$"]
    for key in path:
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif _IDENT.match(key):
            parts.append(f".{key}")
        else:
            parts.append("[" + repr(key) + "]")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Document:
    """One parsed file: `data` (plain dict/list/scalars), positions keyed by node path.

    `values` holds the 1-based (line, col) of every node; `keys` the position of the key that
    introduces each mapping value (where "unknown key" and "duplicate" issues point).
    """

    file: str
    data: Any
    values: dict[PathKey, Position] = field(default_factory=dict)
    keys: dict[PathKey, Position] = field(default_factory=dict)
    origin: Callable[[], tuple[dict[PathKey, Position], dict[PathKey, Position]]] | None = None
    """Finds the positions not recorded at parse time (by parsing the text again), once."""

    def locate(self, path: Iterable[str | int], *, key: bool = False) -> Position:
        """The position of the node at `path`, or of its nearest located ancestor."""
        parts = tuple(path)
        if parts and self.origin is not None:  # frozen: filled in once, like a cache
            values, keys = self.origin()
            object.__setattr__(self, "values", {**self.values, **values})
            object.__setattr__(self, "keys", {**self.keys, **keys})
            object.__setattr__(self, "origin", None)
        if key and parts in self.keys:
            return self.keys[parts]
        while parts:
            if parts in self.values:
                return self.values[parts]
            parts = parts[:-1]
        return self.values.get((), (1, 1))

    def located_only(self) -> Document:
        """The same file and positions without its data: what issues need once a model holds
        the data (a 10,000-agent set keeps no second copy of every agent)."""
        return Document(self.file, None, self.values, self.keys, self.origin)


_ROOTS: dict[Position, dict[PathKey, Position]] = {}


def root_only(where: Position) -> tuple[dict[PathKey, Position], dict[PathKey, Position]]:
    """(values, keys) of a document whose positions, but the root's, are found on demand:
    shared dicts (a document never changes them in place: `locate` replaces them)."""
    return _ROOTS.setdefault(where, {(): where}), _NO_KEYS


_NO_KEYS: dict[PathKey, Position] = {}
