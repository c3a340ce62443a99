"""`handoff graph` formats as a user runs them, and the banking picture the docs show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.patience import HANG_S

HANDOFF = str(Path(sys.executable).parent / "handoff")
PICTURE = REPO / "docs" / "images" / "banking-topology.svg"
pytestmark = pytest.mark.slow


def graph(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([HANDOFF, "graph", "configs/banking", *args], cwd=REPO,
                          capture_output=True, timeout=HANG_S, check=False)


def test_mermaid_is_fenced_for_a_pull_request_and_raw_on_request() -> None:
    fenced = graph().stdout.decode()
    raw = graph("--format", "mermaid-raw").stdout.decode()
    assert raw.startswith("flowchart LR\n")
    assert fenced == f"```mermaid\n{raw.rstrip()}\n```\n"


def test_an_output_it_cannot_write_is_a_usage_error(tmp_path: Path) -> None:
    for output, reason in ((tmp_path, "Is a directory"),
                           (tmp_path / "missing" / "x.svg", "No such file or directory")):
        done = graph("--format", "svg", "--output", str(output))
        assert done.returncode == 2
        assert f"handoff graph: cannot write {output}: {reason}" in done.stderr.decode()


def test_svg_html_and_png_pictures(tmp_path: Path) -> None:
    assert graph("--format", "svg").stdout.startswith(b"<svg ")
    assert graph("--format", "html").stdout.startswith(b"<!doctype html>")
    piped = graph("--format", "png")
    assert piped.returncode == 0 and piped.stdout.startswith(b"\x89PNG\r\n\x1a\n")
    out = tmp_path / "bank.png"
    assert graph("--format", "png", "--output", str(out)).returncode == 0
    assert out.read_bytes() == piped.stdout


def test_the_committed_banking_picture_is_current() -> None:
    """docs/images/banking-topology.svg is `handoff graph configs/banking --format svg`:
    regenerate it with `--output` after changing the banking set or the renderer."""
    assert PICTURE.read_bytes() == graph("--format", "svg").stdout
