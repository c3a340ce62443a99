"""YAML 1.2 core-schema scalar resolution and the tag whitelist of the parse stage.

Only plain data types exist here: null, bool, int, float, str, map, seq. Any other tag
(`!!python/...`, `!custom`, `!!timestamp`) is refused; this module never builds objects.
Numbers JSON data cannot carry (`.inf`, `.nan`, `1e999`, integers beyond 64 bits) are refused
too: every config value must survive `json.dumps` and a 64-bit store.
"""

from __future__ import annotations

import math
import re

YAML_TAG = "tag:yaml.org,2002:"
ALLOWED_TAGS = frozenset(
    YAML_TAG + name for name in ("str", "int", "float", "bool", "null", "map", "seq")
) | {"!"}

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT10 = re.compile(r"[-+]?[0-9]+\Z")
_INT8 = re.compile(r"0o[0-7]+\Z")
_INT16 = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(nan|NaN|NAN)\Z")
_NUMBER_START = frozenset("0123456789+-.")
INT_RANGE = range(-(2**63), 2**63)
"""Integers a config may hold: the signed 64-bit range (SQLite, JSON parsers in other
languages)."""


class TagValueError(ValueError):
    """A scalar's text does not fit its explicit tag (`!!int abc`)."""


class NumberError(ValueError):
    """A number the engine cannot carry: not finite, or an integer outside `INT_RANGE`."""


def resolve_plain(text: str) -> object:
    """The value of an untagged plain scalar under the YAML 1.2 core schema."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    number = _number(text)
    return text if number is None else number


def _number(text: str) -> int | float | None:
    """The number `text` spells, None for no number; NumberError for one that cannot be used."""
    if not text or text[0] not in _NUMBER_START:  # most scalars are words: no regex needed
        return None
    if _INF.match(text) or _NAN.match(text):
        raise NumberError(f"{text} is not a number JSON can carry (no infinity or NaN)")
    for pattern, start, base in ((_INT10, 0, 10), (_INT8, 2, 8), (_INT16, 2, 16)):
        if pattern.match(text):
            return _integer(text, start, base)
    if _FLOAT.match(text):
        value = float(text)
        if not math.isfinite(value):
            raise NumberError(f"{_short(text)} is too large for a float")
        return value
    return None


def _integer(text: str, start: int, base: int) -> int:
    digits = text[start:].lstrip("+-0") or "0"
    if len(digits) > 24:  # past 2**63 in any base: never ask int() for millions of digits
        raise NumberError(f"{_short(text)} is outside the 64-bit integer range")
    value = int(text[start:], base)
    if value not in INT_RANGE:
        raise NumberError(f"{_short(text)} is outside the 64-bit integer range")
    return value


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} characters)"


def resolve_tagged(tag: str, text: str) -> object:
    """The value of a scalar with an allowed explicit tag; raises TagValueError on a misfit."""
    name = tag[len(YAML_TAG) :] if tag.startswith(YAML_TAG) else "str"
    if name == "str":
        return text
    value = resolve_plain(text)
    expected: dict[str, tuple[type, ...]] = {
        "int": (int,),
        "float": (float, int),
        "bool": (bool,),
        "null": (type(None),),
    }
    types = expected.get(name)
    if types is None or not isinstance(value, types) or (name != "bool" and value is True):
        raise TagValueError(f"{text!r} is not a valid !!{name}")
    if value is False and name != "bool":
        raise TagValueError(f"{text!r} is not a valid !!{name}")
    return float(value) if name == "float" and isinstance(value, int) else value
