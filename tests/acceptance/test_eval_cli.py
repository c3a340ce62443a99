"""`handoff eval` in real subprocesses: the shipped corpora against their thresholds, every
report format, CI gates, and bad corpora (located errors, no traceback, bounded memory)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.loading.loader import load_config
from tests.conftest import CONFIGS
from tests.patience import HANG_S

pytestmark = pytest.mark.slow
BANKING = CONFIGS / "banking"
CORPUS = BANKING / "corpus"
# Floors for the shipped corpora, a few points under what the set measures: the held-out ones
# (and blind.csv, written before its author read the set's examples) were never tuned on.
FLOORS = {
    "dev.csv": ("0.94", "specialists=0.90", "0.03"),
    "holdout.csv": ("0.90", "specialists=0.85", "0.04"),
    "holdout_spoken.csv": ("0.90", "specialists=0.85", "0.05"),
    "blind.csv": ("0.85", "specialists=0.78", "0.03"),
}


def handoff(*args: str | Path, timeout: float = HANG_S) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_every_shipped_corpus_is_listed() -> None:
    shipped = sorted(path.name for path in CONFIGS.glob("*/corpus/*.csv"))
    assert shipped == sorted(FLOORS)


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_shipped_corpora_meet_their_floors(name: str) -> None:
    accuracy, recall, false = FLOORS[name]
    done = handoff("eval", BANKING, CORPUS / name, "--format", "json", "--min-accuracy",
                   accuracy, "--min-recall", recall, "--max-false-transfers", false)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["rows"] > 20 and report["bad_rows"] == 0
    assert all(t["passed"] for t in report["thresholds"]) and len(report["thresholds"]) == 3
    assert {a["agent"] for a in report["agents"]} >= {"concierge", "fraud_agent", "claims"}
    own = load_config(BANKING).config.engine.examples
    assert report["examples_layer"] == {"min_score": own.min_score, "margin": own.margin,
                                        "temperature": own.temperature,
                                        "unknown_words": own.unknown_words}


def test_text_report_and_failed_gate() -> None:
    done = handoff("eval", BANKING, CORPUS / "dev.csv", "--min-accuracy", "99.9%",
                   "--min-recall", "fraud_agent=0.5")
    assert done.returncode == 1
    for part in ("accuracy:", "specialist recall:", "false transfers:", "no route:",
                 "latency:", "examples layer:    min_score", "unknown_words", "confusion",
                 "worst misses:", "precision",
                 "thresholds: accuracy", "FAILED", "recall:fraud_agent"):
        assert part in done.stdout, part
    assert "Traceback" not in done.stderr


def test_quiet_shows_only_the_thresholds_missed() -> None:
    failed = handoff("eval", BANKING, CORPUS / "dev.csv", "-q", "--min-accuracy", "99.9%",
                     "--min-recall", "fraud_agent=0.5")
    assert failed.returncode == 1
    lines = failed.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("thresholds: accuracy"), lines
    assert "FAILED" in lines[0]
    passed = handoff("eval", BANKING, CORPUS / "dev.csv", "-q", "--min-accuracy", "0.5")
    assert (passed.returncode, passed.stdout, passed.stderr) == (0, "", "")


def test_github_format() -> None:
    done = handoff("eval", BANKING, CORPUS / "dev.csv", "--format", "github",
                   "--min-accuracy", "1")
    assert done.returncode == 1
    assert done.stdout.startswith("::notice file=")
    assert "::error file=" in done.stdout and "title=threshold" in done.stdout


def test_wrong_transfers_name_what_sent_them(tmp_path: Path) -> None:
    corpus = tmp_path / "c.csv"
    corpus.write_text("text,agent\nwhich rewards do I get on my account,concierge\n"
                      "I want to make a complaint,concierge\n")
    report = json.loads(handoff("eval", BANKING, corpus, "--format", "json").stdout)
    fired = {(t["layer"], t["what"], t["target"]) for t in report["wrong_transfers_by_trigger"]}
    assert ("rule", "formal-complaint", "compliance_desk") in fired
    assert ("rule", "card-shopping", "card_recommendation") in fired
    assert report["false_transfer_rate"] == 1.0
    assert report["worst_misses"][0]["why"].startswith("layer rule")


def test_bad_corpus_rows_are_located_without_a_traceback(tmp_path: Path) -> None:
    corpus = tmp_path / "bad.csv"
    corpus.write_bytes(b"text,agent\nmy card was stolen,fraud_agnt\n,claims\n"
                       b"\xff\xfe,claims\nfine,concierge\n")
    done = handoff("eval", BANKING, corpus)
    assert done.returncode == 1
    assert f"{corpus}:2: error[corpus-unknown-agent]" in done.stderr
    assert "did you mean 'fraud_agent'" in done.stderr
    assert f"{corpus}:3: error[corpus-empty]" in done.stderr
    assert f"{corpus}:4: error[corpus-encoding]" in done.stderr
    assert "(1 rows; 3 bad row(s) skipped)" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["missing.csv"], "not a readable file"),
    (["dev.csv", "--min-accuracy", "2"], "not a fraction"),
    (["dev.csv", "--min-recall", "nobody=0.5"], "'nobody' is not an agent"),
    (["dev.csv", "--min-recall", "fraud_agent"], "not AGENT=FRACTION"),
])
def test_usage_errors(args: list[str], message: str) -> None:
    done = handoff("eval", BANKING, CORPUS / args[0], *args[1:])
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_columns(tmp_path: Path) -> None:
    corpus = tmp_path / "c.csv"
    corpus.write_text("utterance,label\nhello,concierge\n")
    done = handoff("eval", BANKING, corpus)
    assert done.returncode == 1 and "error[corpus-columns]" in done.stderr


def test_a_large_bad_corpus_streams_in_bounded_memory(tmp_path: Path) -> None:
    corpus = tmp_path / "big.csv"
    with corpus.open("wb") as stream:
        stream.write(b"text,agent\n")
        stream.write(b"x" * (10 * 1024 * 1024) + b",concierge\n")  # one 10 MiB line
        stream.write(b"where is my card,nobody\n" * 400_000)
    # VmHWM is this address space's own peak; ru_maxrss would carry over the peak of the
    # (large) test process across fork and exec.
    probe = ("import runpy, sys; sys.argv = ['handoff', 'eval', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('engine', run_name='__main__')\n"
             "except SystemExit as stop:\n"
             "    status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
             "    print('peak', status, file=sys.stderr); raise")
    done = subprocess.run([sys.executable, "-c", probe, str(BANKING), str(corpus)],
                          capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 1
    assert "error[corpus-too-long]" in done.stderr
    assert "... and 399901 more bad row(s)" in done.stderr
    peak_kib = int(done.stderr.rsplit("peak ", 1)[1].split()[0])
    assert peak_kib < 200 * 1024, peak_kib


@pytest.mark.parametrize(("policy", "accuracy", "rows"), [
    ("any", 1.0, 1), ("first", 0.0, 1), ("skip", None, 0)])
def test_a_row_with_several_labels_is_scored_by_the_declared_policy(
    tmp_path: Path, policy: str, accuracy: float | None, rows: int,
) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "someone stole my card", "agent": ["claims", "fraud_agent"]}\n')
    done = handoff("eval", BANKING, corpus, "--several-labels", policy, "--format", "json")
    assert "1 row(s) labelled with several agents" in done.stderr
    if rows == 0:
        assert done.returncode == 1 and "no rows to evaluate" in done.stderr
        return
    report = json.loads(done.stdout)
    assert report["rows"] == rows and report["accuracy"] == accuracy
