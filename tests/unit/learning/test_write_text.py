"""Learned examples appended to an agent file as text: the file reads back as before plus
exactly the new list, whatever the examples say; a file the text path cannot extend safely is
left to the YAML round trip (nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from engine.learning.write import _appended_as_text

NOTE = "learned by `handoff learn` from rows.csv"
AGENT = "name: billing\ndescription: |\n  Bills and refunds.\n  Two lines.\npeers: [front]\n"
TRICKY = ["yes", "No", "15 days from today", "$1 charge", "re: my card", "mambo #5 please",
          "it's 10:30", "ends with a space ", '"quoted"', "- a dash", "a [list] {map}",
          "naïve café £5…", "null", "~", "key: value", "#hash", "'single'", "100", "1e3"]


def read(path: Path) -> object:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def test_every_kind_of_text_reads_back_as_itself(tmp_path: Path) -> None:
    path = tmp_path / "billing.yaml"
    path.write_text(AGENT, encoding="utf-8")
    before = read(path)
    assert _appended_as_text(path, TRICKY, NOTE)
    assert read(path) == {**before, "examples": TRICKY}  # type: ignore[dict-item]
    text = path.read_text(encoding="utf-8")
    assert text.startswith(AGENT) and f"# {NOTE}\nexamples:\n" in text
    assert "  - it's 10:30\n" in text  # readable: plain where plain reads back the same


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(categories=("L", "N", "P", "S")), min_size=1,
                        max_size=20), min_size=1, max_size=5))
def test_any_printable_text_reads_back(tmp_path_factory: pytest.TempPathFactory,
                                       texts: list[str]) -> None:
    path = tmp_path_factory.mktemp("agent") / "a.yaml"
    path.write_text("name: a\n", encoding="utf-8")
    assert _appended_as_text(path, texts, NOTE)
    assert read(path) == {"name": "a", "examples": texts}


@pytest.mark.parametrize("content", [
    "name: a\nexamples:\n  - already here\n",  # a list to extend: the round trip does it
    "name: a\nexamples: []\n",
    "name: a\n...\n",  # a document end: text after it is another document
    "- not\n- a mapping\n",
])
def test_a_file_the_text_path_cannot_extend_is_left_alone(tmp_path: Path, content: str) -> None:
    path = tmp_path / "a.yaml"
    path.write_text(content, encoding="utf-8")
    assert not _appended_as_text(path, ["new example"], NOTE)
    assert path.read_text(encoding="utf-8") == content


def test_a_file_without_a_final_newline_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("name: a", encoding="utf-8")
    assert _appended_as_text(path, ["lost card"], NOTE)
    assert read(path) == {"name": "a", "examples": ["lost card"]}
