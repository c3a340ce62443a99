"""Small config sets written on the fly for the config unit tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
