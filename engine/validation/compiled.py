"""Compiled validators (jsonschema-rs) that answer one question fast: is this instance valid?

They never produce an issue: a "no" sends the instance to the pure `jsonschema` validator,
which locates and words every error. Patterns run on a linear-time regex engine in both;
formats are asserted by both (a format the compiled checker is stricter about only costs a
trip through the pure path). Absent the package (or on a value it cannot convert), every
answer is None: "ask the pure path". Payload checks: `engine.validation.payload_compiled`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

try:
    import jsonschema_rs
except ImportError:  # pragma: no cover - a platform without wheels
    jsonschema_rs = None  # type: ignore[assignment]

Check = Callable[[Any], "bool | None"]


def compile_check(schema: Any) -> Check | None:
    """A fast `is_valid` for `schema`, or None when this schema must take the pure path."""
    if jsonschema_rs is None:
        return None
    try:
        compiled = jsonschema_rs.validator_for(
            schema,
            validate_formats=True,
            pattern_options=jsonschema_rs.RegexOptions(),  # linear time, `$` at the end only
            offline=True,
        )
    except Exception:  # a schema it cannot compile: the pure path decides
        return None
    return guarded(compiled.is_valid)


def guarded(is_valid: Callable[[Any], bool]) -> Check:
    def check(instance: Any) -> bool | None:
        try:
            return bool(is_valid(instance))
        except (ValueError, TypeError, OverflowError):  # e.g. an int past 64 bits
            return None

    return check


@cache
def metaschema_check() -> Check | None:
    """A fast "is this a Draft 2020-12 schema?" over the merged meta-schema, formats asserted
    as the pure check asserts them; None without jsonschema-rs."""
    from engine.validation.metaschema import merged_metaschema

    schema = merged_metaschema()
    if jsonschema_rs is None or schema is None:
        return None
    try:
        compiled = jsonschema_rs.validator_for(schema, validate_formats=True, offline=True)
    except Exception:  # a version that refuses it: the pure path decides
        return None
    return guarded(compiled.is_valid)
