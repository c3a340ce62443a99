"""Small config sets written on the fly for the config unit tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ENGINE = (
    "version: 1\nname: t\nentry: a\ninclude:\n  agents: ['agents/*.yaml']\n"
    "  capabilities: ['capabilities.yaml']\n  routing: ['routing.yaml']\n"
)
CAPABILITIES = "capabilities:\n  alpha: {keywords: [first]}\n  beta: {keywords: [second]}\n"


def config_set(
    write_files: Callable[[dict[str, str]], Path],
    agents: dict[str, str],
    *,
    routing: str = "rules: []\n",
    engine: str = ENGINE,
) -> Path:
    files = {f"agents/{name}.yaml": text for name, text in agents.items()}
    files.update(
        {"engine.yaml": engine, "capabilities.yaml": CAPABILITIES, "routing.yaml": routing}
    )
    return write_files(files)


def subschemas(node: Any, where: str = "$") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object inside a schema with its path (`$/properties/a`), data keywords skipped."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            if key not in ("examples", "default", "const", "enum"):
                yield from subschemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from subschemas(value, f"{where}/{index}")


def deep_folders(base: Path, depth: int) -> Path:
    """`depth` nested folders `d/d/.../d` below `base` (deeper than Python's recursion limit
    when `depth` is over 1,000); returns the deepest."""
    base.mkdir(parents=True, exist_ok=True)
    path = str(base)
    for _ in range(depth):
        path = os.path.join(path, "d")
        os.mkdir(path)
    return Path(path)


def remove_deep_folders(deepest: Path, depth: int) -> None:
    """Remove what `deep_folders` made, bottom up (shutil.rmtree recurses once per level)."""
    path = str(deepest)
    for _ in range(depth):
        os.rmdir(path)
        path = os.path.dirname(path)


def link_chain(folder: Path, target: str, length: int) -> Path:
    """`length` symlinks in `folder`, each to the one before, the first to `target`; returns
    the last (os.path.realpath walks such a chain by recursion, one frame per link)."""
    folder.mkdir(parents=True, exist_ok=True)
    previous = target
    for n in range(length):
        (folder / f"l{n}").symlink_to(previous)
        previous = f"l{n}"
    return folder / previous
