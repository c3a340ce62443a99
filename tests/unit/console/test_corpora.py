"""The eval page lists and runs only corpora the config set may read, by the loader's own rules:
files below the set's folder, through links only when they stay inside it, regular files only.
A link out of the set is never listed, picked or read, and its rows never shown."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engine.runtime.engine import Engine

from .conftest import BANKING

SECRET_ROW = "SECRET-ROW-9f3 do not show,claims"  # a miss: shown on the page when read


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """banking with links out of the set (a corpus file, a folder), a FIFO, a hidden folder
    and a link that stays inside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text(f"text,agent\n{SECRET_ROW}\n", encoding="utf-8")
    root = Path(shutil.copytree(BANKING, tmp_path / "banking"))
    corpus = root / "corpus"
    (corpus / "leak.csv").symlink_to(outside / "secret.csv")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (corpus / "same.csv").symlink_to(corpus / "dev.csv")
    os.mkfifo(corpus / "pipe.csv")
    (root / ".cache").mkdir()
    (root / ".cache" / "old.csv").write_text("text,agent\nx,concierge\n", encoding="utf-8")
    return root


@pytest.fixture
def client(folder: Path) -> Iterator[TestClient]:
    from engine.console.app import build_app

    with Engine(folder, sweep_interval_s=None) as engine, \
            TestClient(build_app(engine, watch=None)) as running:
        yield running


def test_only_corpora_the_set_may_read_are_listed(folder: Path) -> None:
    from engine.console.corpora import shipped_corpora

    on_disk = sorted(f"corpus/{path.name}" for path in (BANKING / "corpus").glob("*.csv"))
    assert shipped_corpora(folder) == sorted([*on_disk, "corpus/same.csv"])


def test_the_shipped_corpora_are_listed_and_picked() -> None:
    from engine.console.corpora import pick_corpus, shipped_corpora

    assert {"corpus/dev.csv", "corpus/holdout.csv"} <= set(shipped_corpora(BANKING))
    assert pick_corpus(BANKING, "corpus/dev.csv") == BANKING / "corpus" / "dev.csv"


@pytest.mark.parametrize("name", ["corpus/leak.csv", "linked/secret.csv", "corpus/pipe.csv",
                                  ".cache/old.csv", "../outside/secret.csv", "corpus",
                                  "/etc/passwd", "engine.yaml", "../research/cases.yaml"])
def test_a_corpus_outside_the_rules_cannot_be_picked(folder: Path, name: str) -> None:
    from engine.console.corpora import pick_corpus
    from engine.errors import UsageError

    with pytest.raises(UsageError, match="is not a corpus of this config set"):
        pick_corpus(folder, name)


@pytest.mark.slow
def test_the_eval_page_never_shows_an_outside_file(client: TestClient) -> None:
    page = client.get("/eval")
    assert page.status_code == 200 and "corpus/dev.csv" in page.text
    assert "leak.csv" not in page.text and "linked/" not in page.text
    assert "pipe.csv" not in page.text
    for name in ("corpus/leak.csv", "linked/secret.csv"):
        refused = client.get("/eval", params={"corpus": name})
        assert refused.status_code == 400 and "SECRET-ROW" not in refused.text
    assert client.get("/eval", params={"corpus": "corpus/same.csv"}).status_code == 200


def test_a_folder_tree_of_any_depth_lists_the_corpora_above_it(tmp_path: Path) -> None:
    """Deeper than Python's recursion limit: the eval page lists what it finds, no error."""
    from engine.console.corpora import shipped_corpora
    from tests.unit.config.helpers import deep_folders, remove_deep_folders

    shutil.copytree(BANKING, tmp_path / "set")
    deepest = deep_folders(tmp_path / "set" / "corpus" / "old", 1_100)
    try:
        listed = shipped_corpora(tmp_path / "set")
    finally:
        remove_deep_folders(deepest, 1_100)
    assert listed == shipped_corpora(BANKING)
