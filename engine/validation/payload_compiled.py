"""The compiled payload check (jsonschema-rs): "is this payload valid?" for user-written
schemas, never "valid" where the pure validator would not be: `pattern`, `multipleOf` and
every format are judged by the pure path's own code, called from the compiled one. Kept apart
from `engine.validation.compiled` so that loading a config set never imports the pure
validator it only needs for payloads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from engine.validation.audit import every_mapping
from engine.validation.bounded import MESSAGE_CHARS
from engine.validation.budget import charge_reading
from engine.validation.compiled import guarded
from engine.validation.shown import SHOWN_CHARS, short_repr

try:
    import jsonschema_rs
except ImportError:  # pragma: no cover - a platform without wheels
    jsonschema_rs = None  # type: ignore[assignment]

_RS_FORMATS = ("date", "date-time", "time", "duration", "email", "idn-email", "hostname",
               "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
               "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex")
_PLAIN = re.compile(
    r"(?:[A-Za-z0-9_\-^$|()*+?{},\[\]/@#%&=~!<>\"' :;]"  # literals and operators
    r"|\\[dwDW.\-\\/^$|()\[\]{}*+?])*"  # \d \w \D \W and escaped operators
)


def _plain(pattern: str) -> bool:
    """Whether `pattern` means the same to the compiled checker's regex engine as to RE2:
    ASCII literals, classes, groups, alternatives, repeats and `\\d`/`\\w`; no `.`, `\\s`,
    inline flags, POSIX classes or other escapes (where the two engines differ)."""
    return _PLAIN.fullmatch(pattern) is not None and "(?" not in pattern and "[:" not in pattern


def _pattern_properties_plain(schema: Any) -> bool:
    for node in every_mapping(schema):
        found = node.get("patternProperties")
        if isinstance(found, dict) and not all(map(_plain, found)):
            return False
    return True


class _Pattern:
    """`pattern` as the pure path runs it (RE2), called from the compiled checker."""

    def __init__(self, parent: Any, value: Any, path: Any) -> None:
        self._pattern = value

    def validate(self, instance: Any) -> None:
        from engine.validation.validators import pattern_matches

        if isinstance(instance, str):
            charge_reading(instance)
            if not pattern_matches(self._pattern, instance):
                raise ValueError(f"{short_repr(instance)} does not match {self._pattern!r}")


class _MultipleOf:
    """`multipleOf` with the pure path's float arithmetic (0.07 is no multiple of 0.01)."""

    def __init__(self, parent: Any, value: Any, path: Any) -> None:
        self._value = value
        self._valid = Draft202012Validator({"multipleOf": value}).is_valid

    def validate(self, instance: Any) -> None:
        if not self._valid(instance):
            raise ValueError(f"{instance!r} is not a multiple of {self._value!r}")


def _format(name: str) -> Callable[[str], bool]:
    from engine.validation.validators import SAFE_FORMATS

    if name not in SAFE_FORMATS.checkers:
        return lambda text: True  # the pure path asserts no such format

    def conforms(text: str) -> bool:
        charge_reading(text)
        return SAFE_FORMATS.conforms(text, name)

    return conforms


class PayloadCheck:
    """A compiled payload schema: `valid` answers fast, `errors` locates (in its own words)."""

    __slots__ = ("_compiled", "valid")

    def __init__(self, compiled: Any) -> None:
        self._compiled = compiled
        self.valid = guarded(compiled.is_valid)

    def errors(self, instance: Any, *, most: int) -> list[ValidationError] | None:
        """Up to `most` errors of `instance` as `jsonschema` errors (path, keyword, message in
        the compiled checker's wording, cut to `short_repr` length), None if it cannot tell."""
        try:
            found = list(islice(self._compiled.iter_errors(instance), most))
        except (ValueError, TypeError, OverflowError):
            return None
        return [ValidationError(_cut(error.message), validator=_keyword(error.schema_path),
                                path=list(error.instance_path)) for error in found]


def _keyword(schema_path: Any) -> Any:
    return next((part for part in reversed(schema_path) if isinstance(part, str)), None)


def _cut(message: str) -> str:
    """At most `MESSAGE_CHARS`: the start (the value quoted) and the end (what is wrong)."""
    if len(message) <= MESSAGE_CHARS:
        return message
    return f"{message[:SHOWN_CHARS]} ... {message[SHOWN_CHARS + 5 - MESSAGE_CHARS:]}"


def compile_payload_check(schema: Any) -> PayloadCheck | None:
    """A fast check of a payload schema whose "valid" is the pure validator's verdict, or None
    when the schema must take the pure path (a `patternProperties` pattern outside the
    dialect both engines agree on, or a schema the compiled checker refuses). Work done in
    the pure path's own code is charged to the running check's budget."""
    if jsonschema_rs is None or not _pattern_properties_plain(schema):
        return None
    try:
        compiled = jsonschema_rs.validator_for(
            schema,
            validate_formats=True,
            formats={name: _format(name) for name in _RS_FORMATS},
            keywords={"pattern": _Pattern, "multipleOf": _MultipleOf},
            pattern_options=jsonschema_rs.RegexOptions(),
            offline=True,
        )
    except Exception:  # a schema it cannot compile: the pure path decides
        return None
    return PayloadCheck(compiled)
