"""The parse stage's fast path reads exactly what the full builder reads, and leaves every
document it cannot vouch for (every issue) to the full builder."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config.parse import FAST_PARSER, parse_text
from engine.config.quick import Unusual, quick_data

pytestmark = pytest.mark.skipif(not FAST_PARSER, reason="needs ruamel.yaml.clib's C parser")

DOCUMENTS = [
    "name: a\nlist: [1, 2.5, true, null, '3', \"x\"]\nnested: {k: {j: [a, {b: c}]}}\n",
    "- 1\n- - 2\n  - 3\n- {}\n- []\n",
    "plain text",
    "# a comment first\n\n  key: value\n",
    "a: |\n  block\n  text\nb: >\n  folded\n",
    "a: 0x1F\nb: 0o17\nc: -0.0\nd: 1e3\ne: ~\n",
    "a: [true, True, TRUE, false, FALSE, null, Null, NULL, ~, tru, nope, .5, +1, -x, .x, '1']\n",
    "{?x: 1}",  # ambiguous flow key
    "[?x]",
    "a: 1\na: 2\n",  # duplicate key
    "1: a\n",  # a key that is not text
    "[a, b]: 1\n",  # complex key
    "a: &x [1]\nb: *x\n",  # anchor and alias
    "a: !!str 1\n",  # tag
    "a: !custom x\n",
    "a: .inf\n",  # numbers JSON cannot carry
    "a: 99999999999999999999\n",
    "",  # no document
    "---\n...\n",
    "a: 1\n---\nb: 2\n",  # a second document
    "a: [1\n",  # syntax error
    "a:\n\tb: 1\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_without_positions_the_data_and_issues_are_those_of_a_full_parse(text: str) -> None:
    quick, quick_issues = parse_text(text, "f.yaml", positions=False)
    full, full_issues = parse_text(text, "f.yaml")
    assert quick_issues == full_issues
    assert (quick is None) == (full is None)
    if quick is not None and full is not None:
        assert quick.data == full.data
        assert repr(quick.data) == repr(full.data)  # 1 vs 1.0 vs True, -0.0 vs 0.0
        assert quick.locate(()) == full.locate(())
        assert quick.locate(("nested", "k")) == full.locate(("nested", "k"))


@pytest.mark.parametrize("text", ["a: !!str 1\n", "a: &x 1\n", "a: 1\na: 2\n", "1: a\n", ""])
def test_the_fast_path_gives_up_on_what_it_does_not_vouch_for(text: str) -> None:
    from engine.config.parse import _c_events

    with pytest.raises(Unusual):
        quick_data(_c_events(text), text, max_depth=64, max_nodes=100)


def test_caps_send_the_document_to_the_full_builder() -> None:
    from engine.config.parse import _c_events

    with pytest.raises(Unusual):
        quick_data(_c_events("[[[1]]]"), "[[[1]]]", max_depth=2, max_nodes=100)
    with pytest.raises(Unusual):
        quick_data(_c_events("[1, 2, 3]"), "[1, 2, 3]", max_depth=64, max_nodes=3)


def test_short_strings_are_interned() -> None:
    one, _ = parse_text("k: " + "".join(["ab", "cd"]), "f.yaml", positions=False)
    two, _ = parse_text("k: abcd\n", "g.yaml", positions=False)
    assert one is not None and two is not None
    assert one.data["k"] is two.data["k"] is sys.intern("abcd")


YAMLISH = st.text(st.sampled_from(list("ab:-[]{}&*!|>'\"#%@`,?\n\t 0é.1")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(YAMLISH)
def test_any_text_reads_the_same_by_both_paths(text: str) -> None:
    quick, quick_issues = parse_text(text, "f.yaml", positions=False)
    full, full_issues = parse_text(text, "f.yaml")
    assert quick_issues == full_issues
    assert repr(quick.data if quick else None) == repr(full.data if full else None)
