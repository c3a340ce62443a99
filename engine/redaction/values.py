"""Values that look like secrets whatever their key: payment card numbers (13-19 digits that
start 2-6 and pass the Luhn check, spaces or dashes allowed between groups), `Bearer` tokens,
JSON Web Tokens and PEM private-key blocks.

One RE2 scan finds the candidates (linear time, never a backtracking engine on caller text);
a few byte operations per candidate decide. Pure.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type information

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_CANDIDATES = re2.compile(
    rb"[0-9](?:[ -]?[0-9]){12,}"
    rb"|(?:[Bb]earer|BEARER)[ \t]+[A-Za-z0-9._~+/=-]{8,}"
    rb"|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"
    rb"|-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)",
    _OPTIONS,
)
MIN_CHARS = 13
"""The shortest text that can hold a secret value (a 13-digit card number)."""
_CARD_MIN, _CARD_MAX = 13, 19
_CARD_FIRST = frozenset(b"23456")  # the networks' first digits: never 0, 1, 7, 8 or 9
_DOUBLED = bytes.maketrans(b"0123456789", b"0246813579")  # a doubled digit's digit sum
_GROUP_STARTS = tuple(bytes([sep, first]) for sep in b" -" for first in _CARD_FIRST)
_VALUE = bytes.maketrans(b"0123456789", bytes(range(10)))  # a digit's value


def hide(text: str, replacement: str) -> str:
    """`text` with every secret value replaced by `replacement` (a Bearer token keeps its
    scheme word); `text` itself when it holds none."""
    if len(text) < MIN_CHARS:
        return text
    raw = text.encode("utf-8", "surrogatepass")  # lone surrogates are kept, never matched
    spans = [span for match in _CANDIDATES.finditer(raw) for span in _secret_spans(match)]
    if not spans:
        return text
    mark = replacement.encode()
    pieces, end = [], 0
    for start, stop in spans:
        pieces += [raw[end:start], mark]
        end = stop
    pieces.append(raw[end:])
    return b"".join(pieces).decode("utf-8", "surrogatepass")


def is_card_number(number: int) -> bool:
    """True for an integer that reads as a card number (13-19 digits, 2-6 first, Luhn)."""
    if not 10 ** (_CARD_MIN - 1) <= number < 10**_CARD_MAX:
        return False
    return _card_spans(str(number).encode(), 0) != []


def _secret_spans(match: Any) -> list[tuple[int, int]]:
    found: bytes = match.group()
    start: int = match.start()
    if found[:1].isdigit():
        return _card_spans(found, start)
    if found.startswith((b"-----", b"eyJ")):
        return [(start, start + len(found))]
    token = found[6:].lstrip(b" \t")  # after the scheme word; letters only is prose
    return [] if token.isalpha() else [(start + len(found) - len(token), start + len(found))]


def _card_spans(run: bytes, offset: int) -> list[tuple[int, int]]:
    """Byte spans of the card numbers in a run of digit groups (single spaces or dashes
    between them) that starts at `offset`: from each group on, the longest run of whole
    groups that reads as one. Linear, a few C-level steps per group: a window of 13-19
    digits passes the Luhn check when two prefix sums agree modulo 10, so each group's
    longest window is one `rfind` per parity among the group ends 13-19 digits on."""
    if len(run) > _CARD_MAX and run.isdigit():  # one number longer than any card
        return []
    if run[0] not in _CARD_FIRST and not any(start in run for start in _GROUP_STARTS):
        return []
    groups = run.replace(b"-", b" ").split(b" ")
    bounds = list(itertools.accumulate(map(len, groups), initial=0))
    digits = b"".join(groups)
    sums = _luhn_prefix_sums(digits)
    ends = (bytearray(b"\xff" * (len(digits) + 1)), bytearray(b"\xff" * (len(digits) + 1)))
    for end in bounds[1:]:  # the residue of the sum a number ending here is checked with
        parity = (end - 1) % 2
        ends[parity][end] = sums[parity][end] % 10
    spans, i = [], 0
    while i < len(groups):
        begin = bounds[i]
        end = -1
        if digits[begin] in _CARD_FIRST:
            low, high = begin + _CARD_MIN, begin + _CARD_MAX + 1
            end = max(ends[0].rfind(sums[0][begin] % 10, low, high),
                      ends[1].rfind(sums[1][begin] % 10, low, high))
        if end < 0:
            i += 1
            continue
        last = bisect.bisect_left(bounds, end, i + 1)
        spans.append((offset + begin + i, offset + end + last - 1))
        i = last
    return spans


def _luhn_prefix_sums(digits: bytes) -> tuple[list[int], list[int]]:
    """For each parity p, prefix sums of the Luhn terms of `digits` when the digits at
    positions of the other parity are doubled: the number digits[s:e] (whose last digit is
    never doubled) sums to sums[(e - 1) % 2][e] - sums[(e - 1) % 2][s]. All byte work."""
    doubled = digits.translate(_DOUBLED)
    odd_doubled, even_doubled = bytearray(digits), bytearray(digits)
    odd_doubled[1::2] = doubled[1::2]
    even_doubled[0::2] = doubled[0::2]
    return (list(itertools.accumulate(odd_doubled.translate(_VALUE), initial=0)),
            list(itertools.accumulate(even_doubled.translate(_VALUE), initial=0)))
