"""The eval page's work: corpora a set ships, size-capped uploads, the report's shape."""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.config.loader import load_config
from engine.console import evaluation
from engine.console.evaluation import UploadTooLarge, pick_corpus, run_eval, save_upload
from engine.errors import UsageError
from engine.routing.router import Router
from tests.unit.config.helpers import deep_folders, remove_deep_folders

from .conftest import BANKING


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def test_shipped_corpora_are_listed_and_only_they_can_be_picked() -> None:
    on_disk = sorted(f"corpus/{path.name}" for path in (BANKING / "corpus").glob("*.csv"))
    assert evaluation.shipped_corpora(BANKING) == on_disk
    assert {"corpus/dev.csv", "corpus/holdout.csv"} <= set(on_disk)
    assert pick_corpus(BANKING, "corpus/dev.csv") == BANKING / "corpus" / "dev.csv"
    for name in ("../research/cases.yaml", "/etc/passwd", "engine.yaml", "corpus"):
        with pytest.raises(UsageError, match="is not a corpus of this config set"):
            pick_corpus(BANKING, name)


def test_a_folder_tree_of_any_depth_lists_the_corpora_above_it(tmp_path: Path) -> None:
    """Deeper than Python's recursion limit: the eval page lists what it finds, no error."""
    shutil.copytree(BANKING, tmp_path / "set")
    deepest = deep_folders(tmp_path / "set" / "corpus" / "old", 1_100)
    try:
        listed = evaluation.shipped_corpora(tmp_path / "set")
    finally:
        remove_deep_folders(deepest, 1_100)
    assert listed == evaluation.shipped_corpora(BANKING)


def test_an_upload_is_saved_whole_under_the_cap() -> None:
    path = asyncio.run(save_upload(_chunks(b"text,agent\n", b"hi,concierge\n"),
                                   filename="../../x.csv", limit=100))
    try:
        assert path.suffix == ".csv" and path.name.startswith("handoff-corpus-")
        assert path.read_bytes() == b"text,agent\nhi,concierge\n"
    finally:
        path.unlink()


def test_an_upload_over_the_cap_is_refused_and_leaves_nothing(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    monkeypatch.setattr(evaluation.tempfile, "tempdir", str(tmp_path))
    with pytest.raises(UploadTooLarge, match=r"upload limit \(10 bytes\)"):
        asyncio.run(save_upload(_chunks(b"12345678", b"90123"), filename="a.jsonl", limit=10))
    assert list(tmp_path.iterdir()) == []


def test_the_report_tallies_every_row() -> None:
    view = run_eval(Router(load_config(BANKING)), BANKING / "corpus" / "dev.csv", label="dev")
    rows = int(str(view.summary["rows"]))
    assert sum(map(sum, view.matrix)) == rows
    assert sum(view.matrix[n][n] for n in range(len(view.names))) == view.correct
    assert view.peak == max(max(row) for row in view.matrix)
    assert len(view.misses) <= evaluation.WORST and view.bad_count == 0
    bars = re.findall(r'<rect class="bar series-recall" [^>]*><title>([^<]*)</title>', view.chart)
    assert bars == [f"{s.agent} recall {s.recall:.1%} ({s.support} rows)" for s in view.scores]


def test_bad_rows_are_reported_not_raised(tmp_path: Path) -> None:
    corpus = tmp_path / "c.csv"
    corpus.write_text("text,agent\nhello,concierge\nhi,nobody\n,claims\n", encoding="utf-8")
    view = run_eval(Router(load_config(BANKING)), corpus, label="c")
    assert view.bad_count == 2
    assert view.bad_rows[0].startswith("line 3: corpus-unknown-agent:")
