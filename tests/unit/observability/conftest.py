"""Fixtures of the observability tests: a real banking config folder and an engine on it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import Engine

BANKING = Path(__file__).resolve().parents[3] / "configs" / "banking"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of configs/banking whose engine.yaml also redacts `priority` (so a reload issue
    quoting a priority value must come out redacted)."""
    copy = Path(shutil.copytree(BANKING, tmp_path / "banking"))
    root = copy / "engine.yaml"
    root.write_text(root.read_text(encoding="utf-8") + "redact:\n  keys: [priority]\n",
                    encoding="utf-8")
    return copy


@pytest.fixture
def engine(folder: Path) -> Iterator[Engine]:
    with Engine(folder, sweep_interval_s=None) as running:
        yield running
