"""Confusable skeletons of names and keywords (after Unicode TR39), and the invisible characters
(Unicode's default-ignorable code points) that make two spellings of one word.

Two texts read alike when either of their keys is equal: one folds case first (`Fraud`,
`fraud`), the other maps look-alike letters before folding case (`cIaims`, with a capital I,
and `claims`). Both drop invisible characters, apply NFKD and a table of the look-alikes that
matter for Latin, Cyrillic and Greek text and for ASCII names (TR39's prototypes: `I`, `1`, `|`
-> `l`; `0` -> `o`; `rn` and `m`, `cl` and `d` alike). Pure text functions: no config here.
"""

from __future__ import annotations

import unicodedata

DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): zero-width
spaces and joiners, bidi controls, variation selectors, tags, fillers. Nothing shows them."""

_PROTOTYPES: dict[str, str] = {
    "l": "I1|\u01c0\u0399\u0406\u04c0\u04cf",
    "i": "\u0131\u0269\u03b9\u0456",
    "o": "0O\u039f\u03bf\u03c3\u041e\u043e",
    "a": "\u0251\u0391\u03b1\u0410\u0430",
    "b": "\u0392\u0412",
    "c": "\u03f2\u03f9\u0421\u0441",
    "d": "\u0501",
    "e": "\u0395\u0415\u0435",
    "g": "\u0261",
    "h": "\u0397\u041d\u04bb",
    "j": "\u037f\u03f3\u0408\u0458",
    "k": "\u039a\u041a",
    "m": "\u039c\u041c",
    "n": "\u039d",
    "p": "\u03a1\u03c1\u0420\u0440",
    "q": "\u051b",
    "s": "\u0405\u0455",
    "t": "\u03a4\u0422",
    "u": "\u03c5",
    "v": "\u03bd\u0474\u0475",
    "w": "\u051c\u051d\u0461",
    "x": "\u03a7\u03c7\u0425\u0445",
    "y": "\u03a5\u03b3\u0423\u0443\u04ae\u04af",
    "z": "\u0396",
    "-": "\u02d7\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212",
}
"""Prototype -> the single characters that look like it. No prototype is itself mapped, so
applying the table twice changes nothing."""
_PAIRS = (("rn", "m"), ("cl", "d"))
"""Two letters that together look like one (TR39 maps `m` to `rn` and `d` to `cl`; the other
way round gives the same equalities and shorter keys)."""

_TABLE: dict[int, int] = {
    ord(char): ord(prototype) for prototype, chars in _PROTOTYPES.items() for char in chars
}
"""One character to one: `str.translate` takes its fast path on ASCII text."""
_IGNORABLE_TABLE: dict[int, None] = {
    code: None for low, high in DEFAULT_IGNORABLE if high - low < 0x100
    for code in range(low, high + 1)
}
"""Default-ignorables to drop with `str.translate` (the tag block is dropped apart)."""


def is_invisible(char: str) -> bool:
    """Is `char` a default-ignorable code point?"""
    code = ord(char)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def invisible(text: str) -> list[tuple[int, str]]:
    """(index, character) of every default-ignorable character of `text`."""
    if text.isascii():
        return []
    return [(index, char) for index, char in enumerate(text) if is_invisible(char)]


def _visible(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).translate(_IGNORABLE_TABLE)
    return "".join(char for char in text if not 0xE0000 <= ord(char) <= 0xE0FFF)


def lookalike_keys(text: str) -> tuple[str, str]:
    """(case-folded key, look-alike key) of `text`: two texts read alike when one of their
    keys is equal (see the module docstring)."""
    if text.isascii():  # every ASCII prototype is lower case: one pass of each is enough
        folded, mapped = text.lower().translate(_TABLE), text.translate(_TABLE).lower()
    else:
        plain = _visible(text)
        folded = plain.casefold().translate(_TABLE).casefold().translate(_TABLE)
        mapped = plain.translate(_TABLE).casefold().translate(_TABLE)
    for pair, letter in _PAIRS:
        folded, mapped = folded.replace(pair, letter), mapped.replace(pair, letter)
    return folded, mapped


def character_name(char: str) -> str:
    """`U+200B ZERO WIDTH SPACE`; the code point alone for a character without a name."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}" if name else f"U+{ord(char):04X}"


def shown(text: str) -> str:
    """`text` quoted, with its escapes beside it when it is not plain ASCII ('frаud' is
    shown as 'frаud' ('fr\\u0430ud'))."""
    return repr(text) if text.isascii() else f"{text!r} ({text!a})"
