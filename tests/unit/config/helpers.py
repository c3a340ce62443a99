"""Small config sets written on the fly for the config unit tests."""

from __future__ import annotations

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
