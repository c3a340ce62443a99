"""Fitted models kept on disk: a second process reads what the first fitted, a damaged file is
fitted again and replaced, and a cache that is off or cannot be written changes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.routing import linear, model_store
from tests.patience import HANG_S
from tests.unit.routing.test_linear import corpus

FIT_AND_ROUTE = """
from engine.config.models import NormalizationSpec
from engine.routing import linear
from engine.text.normalize import Normalizer
from tests.unit.routing.test_linear import corpus
calls = []
real = linear._fit
linear._fit = lambda *args: calls.append(1) or real(*args)
tokens, labels = corpus()
model = linear.fit_model(tokens, labels, classes=3, unknown_weight=0.7, stop_words=frozenset())
scores = model.scores(Normalizer(NormalizationSpec()).tokens("my card was stolen"))
print(len(calls), [round(value) for value in scores.values])
"""


def run(cache: Path | str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", FIT_AND_ROUTE], capture_output=True,
                          text=True, timeout=HANG_S, env={"HANDOFF_MODEL_CACHE": str(cache),
                                                      "PATH": "/usr/bin:/bin"},
                          cwd=Path(__file__).resolve().parents[3], check=True)
    return done.stdout.split(" ", 1)


@pytest.mark.slow
def test_a_second_process_reads_the_model_the_first_fitted(tmp_path: Path) -> None:
    first, second = run(tmp_path), run(tmp_path)
    assert first[0] == "1" and second[0] == "0"  # fitted once, then read
    assert first[1] == second[1]  # the same scores, to the unit
    assert len(list(tmp_path.glob("*.model"))) == 1


@pytest.mark.slow
def test_a_damaged_file_is_fitted_again_and_replaced(tmp_path: Path) -> None:
    run(tmp_path)
    [kept] = tmp_path.glob("*.model")
    good = kept.read_bytes()
    kept.write_bytes(good[:-10] + b"x" * 10)
    assert run(tmp_path)[0] == "1"
    assert run(tmp_path)[0] == "0"  # the file written again reads


@pytest.mark.slow
def test_off_or_unwritable_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           ) -> None:
    assert run("off")[0] == "1"
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert run(blocked / "models")[0] == "1"  # cannot be created: fitted, not kept
    monkeypatch.setenv("HANDOFF_MODEL_CACHE", "off")
    assert model_store.folder() is None and model_store.load("0" * 64) is None


def test_a_kept_model_is_the_fitted_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HANDOFF_MODEL_CACHE", str(tmp_path))
    tokens, labels = corpus()
    fitted = linear._fit(tokens, labels, 3, 0.3, frozenset({"my"}))
    model_store.save("k", linear._plain(fitted))
    assert linear._from_plain(model_store.load("k")) == fitted
