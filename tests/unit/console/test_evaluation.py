"""The eval page's work: size-capped uploads, the report's shape, and a corpus with no rows
refused as `handoff eval` refuses it."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engine.console import evaluation
from engine.console.evaluation import UploadTooLarge, run_eval, save_upload
from engine.errors import UsageError
from engine.loading.loader import load_config
from engine.routing.router import Router
from engine.runtime.engine import Engine

from .conftest import BANKING


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


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


def test_a_corpus_without_rows_is_refused_like_the_cli(tmp_path: Path) -> None:
    corpus = tmp_path / "empty.jsonl"
    corpus.write_bytes(b"")
    with pytest.raises(UsageError, match=r"^empty: no rows to evaluate$"):
        run_eval(Router(load_config(BANKING)), corpus, label="empty")


def test_an_empty_upload_is_a_400_saying_there_are_no_rows() -> None:
    from engine.console.app import build_app

    with Engine(BANKING, sweep_interval_s=None) as engine, \
            TestClient(build_app(engine, watch=None)) as client:
        answer = client.post("/eval/upload", content=b"",
                             headers={"x-corpus-name": "empty.jsonl"})
    assert answer.status_code == 400
    found = re.search(r'id="eval-error">([^<]*)<', answer.text)
    assert found is not None
    assert html.unescape(found.group(1)) == "uploaded: empty.jsonl: no rows to evaluate"
    assert 'id="accuracy"' not in answer.text
