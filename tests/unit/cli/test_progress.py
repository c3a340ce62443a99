"""The progress line: on a terminal only, for sets large enough to wait for, erased at the end."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from engine.cli.progress import MIN_FILES, ProgressLine
from engine.loading.loader import check_paths
from tests.unit.config.helpers import config_set


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_one_rewritten_line_that_is_erased_at_the_end() -> None:
    stream = Terminal()
    line = ProgressLine("checking", stream=stream)
    line.update(100, 1_000, what="configs/big")
    line.update(200, 1_000)  # within the interval: not drawn
    line.close()
    text = stream.getvalue()
    assert text.startswith("\rchecking configs/big: 100/1,000 files (10%)")
    assert text.count("files") == 1 and text.endswith("\r") and "\n" not in text


def test_nothing_is_written_off_a_terminal_or_for_a_small_set() -> None:
    piped, small = io.StringIO(), Terminal()
    ProgressLine("checking", stream=piped).update(100, 1_000)
    ProgressLine("checking", stream=small).update(1, MIN_FILES - 1)
    assert piped.getvalue() == "" and small.getvalue() == ""


def test_check_reports_how_far_each_set_got(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    agents = {"a": "name: a\nhandoff: {is_entry_point: true}\npeers: '*'\n"}
    agents.update({f"b{n}": f"name: b{n}\nterminal: true\n" for n in range(249)})
    folder = config_set(write_files, agents)
    heard: list[tuple[str, int, int]] = []
    result = check_paths(
        [folder], progress=lambda root, done, total: heard.append((root, done, total))
    )
    assert not result.errors
    assert heard[0] == (str(folder / "engine.yaml"), 0, 252)
    assert [done for _, done, _ in heard] == [0, 100, 200]
