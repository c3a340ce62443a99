"""Signatures tell whether a file or folder may have changed; a file that merely aged past
the racy window has not, and a listing recorded while its root was racy stays in use."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.config import signature
from engine.config.listing import Caps
from engine.config.signature import signatures, still
from engine.loading.incremental.loader import listed_again
from engine.loading.incremental.memory import ReloadMemory
from tests.unit.config.helpers import ENGINE

WRITTEN_NOW = 3600.0
"""A racy window that holds every file of the test: each is hashed as just written."""
LONG_AGO = -3600.0
"""A window that holds none: each is compared by its stat alone, as an old file is."""


def test_a_file_recorded_while_racy_is_unchanged_once_it_aged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "engine.yaml"
    path.write_text("a: 1\n", "utf-8")
    monkeypatch.setattr(signature, "RACY_S", WRITTEN_NOW)
    recorded = signatures([str(path)])
    monkeypatch.setattr(signature, "RACY_S", LONG_AGO)
    assert signatures([str(path)]) != recorded  # the stat alone now
    assert still(recorded) == signatures([str(path)])


def test_a_racy_file_whose_bytes_differ_is_changed_whatever_its_stat_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write inside the racy window can keep the stat; the hash recorded then tells."""
    path = tmp_path / "engine.yaml"
    path.write_text("a: 1\n", "utf-8")
    monkeypatch.setattr(signature, "RACY_S", WRITTEN_NOW)
    stat, _digest = signatures([str(path)])[1]  # type: ignore[misc]
    other = hashlib.sha256(b"a: 2\n").digest()
    recorded = (str(path), (stat, other))
    assert still(recorded) is None
    monkeypatch.setattr(signature, "RACY_S", LONG_AGO)
    assert still(recorded) is None


def test_a_listing_kept_while_its_root_was_racy_is_used_once_the_root_aged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hot reload keeps the listing (and so can patch its last build) when nothing but the
    root file's age changed between two looks."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.yaml").write_text("name: a\n", "utf-8")
    (tmp_path / "engine.yaml").write_text(ENGINE, "utf-8")
    memory = ReloadMemory()
    monkeypatch.setattr(signature, "RACY_S", WRITTEN_NOW)
    first = listed_again(memory, tmp_path / "engine.yaml", "engine.yaml", Caps())
    monkeypatch.setattr(signature, "RACY_S", LONG_AGO)
    assert listed_again(memory, tmp_path / "engine.yaml", "engine.yaml", Caps()) == first
    (tmp_path / "engine.yaml").write_text(ENGINE.replace("name: t", "name: u"), "utf-8")
    again = listed_again(memory, tmp_path / "engine.yaml", "engine.yaml", Caps())
    assert again.number != first.number
