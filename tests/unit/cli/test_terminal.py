"""Caller text printed on a terminal: every control character shown as an escape, never sent."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cli.terminal import json_safe, printable

UNSAFE = (
    [chr(code) for code in range(0x20)] + ["\x7f"] + [chr(code) for code in range(0x80, 0xA0)]
    + ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029"]
    + [chr(code) for code in range(0x202A, 0x202F)] + [chr(code) for code in range(0x2066, 0x206A)]
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),  # a window title
        ("ok\n\x1b[1A\x1b[2Kstatus: completed", "ok\\x0a\\x1b[1A\\x1b[2Kstatus: completed"),
        ("\x9b31mred", "\\x9b31mred"),  # C1 CSI
        ("abc\u202edcba", "abc\\u202edcba"),  # right-to-left override
        ("del\x7f", "del\\x7f"),
        ("Schaden über 1e20 € ✓", "Schaden über 1e20 € ✓"),  # printable text stays as it is
    ],
)
def test_control_characters_are_shown_as_escapes(text: str, shown: str) -> None:
    assert printable(text) == shown


@given(st.text())
def test_printable_text_holds_no_control_character(text: str) -> None:
    shown = printable(text)
    assert not any(char in shown for char in UNSAFE)
    assert printable(shown) == shown


@given(st.lists(st.text()))
def test_json_safe_keeps_the_json_value_and_holds_no_control_character_in_strings(
    texts: list[str],
) -> None:
    encoded = json_safe(json.dumps(texts, ensure_ascii=False, indent=2))
    assert not any(char in encoded for char in UNSAFE if char != "\n")  # lines of the layout
    assert json.loads(encoded) == texts
