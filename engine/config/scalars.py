"""YAML 1.2 core-schema scalar resolution and the tag whitelist of the parse stage.

Only plain data types exist here: null, bool, int, float, str, map, seq. Any other tag
(`!!python/...`, `!custom`, `!!timestamp`) is refused; this module never builds objects.
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


class TagValueError(ValueError):
    """A scalar's text does not fit its explicit tag (`!!int abc`)."""


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
    if _INT10.match(text):
        return int(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return None


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
