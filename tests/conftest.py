"""Shared test helpers: writing config sets to temporary folders."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# CI explores the same examples on every run (a red build must be reproducible); local runs
# keep hypothesis's random exploration, which is how new failures get found.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def write_files(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write `{relative path: text}` below a temporary folder and return the folder."""

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return write
