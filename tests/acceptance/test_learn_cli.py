"""`handoff learn` in real subprocesses: a learned set is written beside the original (never
over it), passes `handoff check --strict`, reads well in a diff and routes its corpus better."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from engine.loading.loader import load_config
from engine.routing.examples import agent_examples
from tests.conftest import CONFIGS, REPO
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
BANKING = CONFIGS / "banking"
sys.path.insert(0, str(REPO / "tests" / "bench"))
from gen_corpus import generate  # noqa: E402


def handoff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)],
                          capture_output=True, text=True, timeout=HANG_S)


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def write_corpus(path: Path, rows: list[tuple[str, str]]) -> Path:
    import csv

    with path.open("w", newline="") as stream:
        csv.writer(stream).writerows([("text", "agent"), *rows])
    return path


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path, str]:
    """One `learn` of banking's dev corpus, shared by the tests that only read its output:
    banking's digest before it, the folder it wrote, and its JSON report."""
    before = digest(BANKING)
    out = tmp_path_factory.mktemp("learn") / "learned"
    done = handoff("learn", BANKING, BANKING / "corpus" / "dev.csv", "--out", out,
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    return before, out, done.stdout


def test_learn_writes_a_checked_copy_and_leaves_the_original(
    learned: tuple[dict[str, str], Path, str],
) -> None:
    before, out, stdout = learned
    assert digest(BANKING) == before
    report = json.loads(stdout)
    assert set(report["before"]) == set(report["after"]) == {
        "accuracy", "specialist_recall", "false_transfer_rate"}
    left_out = sum(found["rows"] for reason, found in report["cleaning"].items()
                   if reason != "cut")
    assert report["test_rows"] + report["train_rows"] + left_out == 306
    assert sum(report["examples"].values()) > 0
    assert handoff("check", out, "--strict").returncode == 0
    assert (out / "cases.yaml").read_bytes() == (BANKING / "cases.yaml").read_bytes()
    tested = handoff("test", out)  # the set's own cases went with it, and run on what it learned
    assert tested.returncode in (0, 1) and "30 case(s):" in tested.stdout
    text = (out / "capabilities.yaml").read_text()
    assert "# learned by `handoff learn` from" in text
    assert "# ---- the fraud team" in text  # the original comments survive
    assert not (out / "corpus").exists()  # only the set's own files are copied
    evaluated = handoff("eval", out, BANKING / "corpus" / "holdout.csv", "--format", "json")
    assert json.loads(evaluated.stdout)["accuracy"] > 0.8


def test_learning_twice_gives_the_same_files(
    learned: tuple[dict[str, str], Path, str], tmp_path: Path
) -> None:
    _, first, _ = learned
    again = handoff("learn", BANKING, BANKING / "corpus" / "dev.csv", "--out", tmp_path / "two")
    assert again.returncode == 0, again.stderr
    assert digest(tmp_path / "two") == digest(first)


def test_a_learned_config_reaches_the_targets_on_a_synthetic_corpus(tmp_path: Path) -> None:
    train = write_corpus(tmp_path / "train.csv", generate(2500, 1))
    test = write_corpus(tmp_path / "test.csv", generate(800, 2))
    out = tmp_path / "learned"
    learned = handoff("learn", BANKING, train, "--out", out, "--format", "json")
    assert learned.returncode == 0, learned.stderr
    report = json.loads(learned.stdout)
    assert report["after"]["accuracy"] > report["before"]["accuracy"] + 0.05
    chosen = report["thresholds"]
    written = YAML(typ="safe").load((out / "engine.yaml").read_text())
    assert written["examples"] == {**written["examples"], **chosen}
    done = handoff("eval", out, test, "--min-accuracy", "0.95", "--min-recall",
                   "specialists=0.85", "--max-false-transfers", "0.04", "--format", "json")
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.parametrize("where", ["non-empty", "inside", "a file"])
def test_learn_never_writes_over_files(tmp_path: Path, where: str) -> None:
    """Refused before any learning: the report says why and learn prints no figures."""
    out = tmp_path / "busy"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    target = {"non-empty": out, "inside": BANKING / "learned", "a file": out / "keep.txt"}
    done = handoff("learn", BANKING, BANKING / "corpus" / "dev.csv", "--out", target[where])
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "learn never overwrites" in done.stderr or "inside the config set" in done.stderr
    assert done.stdout == ""  # nothing learned first
    assert (out / "keep.txt").read_text() == "mine"
    assert not (BANKING / "learned").exists()


def test_a_corpus_of_bad_rows_only_writes_nothing(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.csv", [("stolen card", "fraud")])
    done = handoff("learn", BANKING, corpus, "--out", tmp_path / "out")
    assert done.returncode == 2 and "did you mean 'fraud_agent'" in done.stderr
    assert "holds no rows to learn from" in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_hostile_corpus_is_reported_by_row_and_still_gives_a_valid_set(tmp_path: Path) -> None:
    """Conflicting labels, duplicates, an unknown label, a 1 MB row, bytes that are not UTF-8,
    line separators inside text: located in the report, left out or cleaned, and the written
    set passes `check --strict`."""
    good = [(f"my gizmo number {n} broke", "claims_intent") for n in range(30)]
    good += [(f"what is my balance number {n}", "everyday") for n in range(30)]
    lines = ["text,label"] + [f"{text},{label}" for text, label in good] + [
        "my gizmo number 1 broke,everyday",          # outvoted by two claims rows
        "My gizmo number 1 broke!,claims_intent",     # a duplicate
        "hello there,nobody_knows",                    # a label the map does not have
        "x" * 1_000_000 + ",everyday",                 # longer than a line may be
        "line\u2028two,everyday",
    ]
    corpus = tmp_path / "hostile.csv"
    corpus.write_bytes("\n".join(lines).encode("utf-8") + b"\nbad \xff byte,everyday\n")
    labels = tmp_path / "labels.yaml"
    labels.write_text("intents:\n  claims_intent: claims\n  everyday: {agent: concierge}\n")
    out = tmp_path / "out"
    done = handoff("learn", BANKING, corpus, "--out", out, "--labels", labels,
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    stderr = done.stderr
    assert "label 'nobody_knows' is not in the label map" in stderr
    assert "longer than" in stderr and "not valid UTF-8" in stderr
    report = json.loads(done.stdout)
    assert report["cleaning"]["conflict"]["rows"] == 1
    assert report["cleaning"]["duplicate"]["rows"] == 1
    bad = report["bad_rows"]  # the rows left out before cleaning, located in the report too
    assert bad["rows"] == 3 and [issue["line"] for issue in bad["issues"]] == [64, 65, 67]
    assert [issue["code"] for issue in bad["issues"]] == [
        "corpus-unknown-label", "corpus-too-long", "corpus-encoding"]
    assert report["several_labels"] == {"rows": 0, "policy": "first"}
    assert handoff("check", out, "--strict").returncode == 0


@pytest.mark.parametrize(("policy", "learned_row"), [("first", True), ("skip", False)])
def test_rows_with_several_labels_follow_the_declared_policy(
    tmp_path: Path, policy: str, learned_row: bool,
) -> None:
    rows = [(f"my gizmo number {n} broke", "claims") for n in range(20)]
    rows += [(f"what is my balance number {n}", "concierge") for n in range(20)]
    rows.append(("my gadget was nicked and I want to claim", "claims|fraud_agent"))
    corpus = write_corpus(tmp_path / "c.csv", rows)
    out = tmp_path / "out"
    done = handoff("learn", BANKING, corpus, "--out", out, "--several-labels", policy,
                   "--holdout", "0.5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 row(s) labelled with several agents" in done.stderr
    config = load_config(out).config
    owners = {agent for text, agent, _group in agent_examples(config.agents.values(),
                                                              config.capabilities)
              if text == "my gadget was nicked and I want to claim"}
    assert owners == ({"claims"} if learned_row else set())


def test_a_cases_file_linked_from_outside_the_set_is_copied_as_what_it_names(
    tmp_path: Path,
) -> None:
    base = tmp_path / "set"
    shutil.copytree(BANKING, base)
    shared = tmp_path / "shared_cases.yaml"
    shutil.move(base / "cases.yaml", shared)
    (base / "cases.yaml").symlink_to(shared)
    out = tmp_path / "out"
    done = handoff("learn", base, BANKING / "corpus" / "holdout.csv", "--out", out, "-q")
    assert done.returncode == 0, done.stderr
    assert not (out / "cases.yaml").is_symlink()
    assert (out / "cases.yaml").read_bytes() == shared.read_bytes()
