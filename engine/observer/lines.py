"""What may stand in one line of a log: `escape_controls` writes line breaks, terminal escapes
and bidi controls as visible escapes, so text from callers can neither start a line of its own
nor change how a line reads. Pure.
"""

from __future__ import annotations

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
CONTROLS = frozenset(
    [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0))] + ["\u2028", "\u2029", *_BIDI]
)
"""What `escape_controls` escapes: C0 and C1 controls (line feed, carriage return, NEL, ESC,
...), DEL, the line and paragraph separators U+2028/U+2029, and the bidi controls that reorder
how a line reads (U+061C, U+200E/F, U+202A-E, U+2066-9)."""
_TABLE = str.maketrans({
    ch: _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
    for ch in CONTROLS
})


def escape_controls(text: str) -> str:
    """`text` with every character of `CONTROLS` written as an escape (`\\n`, `\\x1b`,
    `\\u2028`); `text` itself when it has none. Backslashes are kept as they are."""
    escaped = text.translate(_TABLE)
    return text if escaped == text else escaped


def has_controls(text: str) -> bool:
    """True when `text` holds a character of `CONTROLS`."""
    return not CONTROLS.isdisjoint(text)
