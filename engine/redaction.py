"""The redaction policy: which keys hold secrets, and copies of data with their values hidden.

Key patterns are plain globs (a literal name with an optional `*` at either end), matched in
linear time, never regular expressions. Pure: it reads data and returns copies; it never
stores, logs or decides what is stored (the lifecycle manager and the exports call it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from engine.errors import UsageError

if TYPE_CHECKING:
    from engine.lifecycle.models import HandoffRecord

REDACTED = "[redacted]"
"""What a secret value is replaced with."""

DEFAULT_KEYS: tuple[str, ...] = (
    "*password*", "*passwd*", "*passphrase*", "*secret*", "*api_key*", "*apikey*", "*token",
    "*private_key*", "*credential*", "*authorization", "*cookie", "otp", "pin", "cvv", "cvc",
    "card_number", "ssn",
)
"""Key patterns redacted unless a config turns the defaults off (`redact.defaults: false`)."""

PATTERN = re.compile(r"\*?[a-z0-9_.]+\*?")
"""A key pattern once normalized: a literal with an optional `*` at the start and/or end."""

_MAX_DEPTH = 200  # deeper data is hidden whole rather than walked
_SCALARS = frozenset({str, int, float, bool, type(None)})
_CACHE_SIZE = 4096
T = TypeVar("T")


def normalize(key: str) -> str:
    """Keys and patterns compare case-insensitively, with `-` and `_` equal."""
    return key.lower().replace("-", "_")


class Redactor:
    """Hides the values of keys that match its patterns (the defaults plus `keys`).

    `Redactor()` applies `DEFAULT_KEYS`; `Redactor(["customer_id"])` adds a pattern;
    `Redactor(keys, defaults=False)` applies only `keys`. A bad pattern is a `UsageError`.
    """

    def __init__(self, keys: Iterable[str] = (), *, defaults: bool = True) -> None:
        patterns = (*(DEFAULT_KEYS if defaults else ()), *keys)
        groups: dict[str, list[str]] = {"exact": [], "prefix": [], "suffix": [], "inner": []}
        for pattern in patterns:
            kind, core = _parse(pattern)
            groups[kind].append(core)
        self.patterns: tuple[str, ...] = patterns
        self._exact = frozenset(groups["exact"])
        self._prefixes = tuple(groups["prefix"])
        self._suffixes = tuple(groups["suffix"])
        self._inner = tuple(groups["inner"])
        self._cache: dict[str, bool] = {}

    def matches(self, key: str) -> bool:
        """True if `key`'s value must be hidden. Linear in the key's length per pattern."""
        hit = self._cache.get(key)
        if hit is None:
            name = normalize(key)
            hit = (
                name in self._exact
                or name.startswith(self._prefixes)
                or name.endswith(self._suffixes)
                or any(part in name for part in self._inner)
            )
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    def redact(self, data: T) -> T:
        """A copy of `data` with the value of every matching key (at any depth, in mappings
        inside lists too) replaced by `REDACTED`; `data` itself when nothing matched."""
        return self._walk(data, 0)  # type: ignore[no-any-return]

    def _walk(self, value: Any, depth: int) -> Any:
        """`value` with secrets hidden; copies only the containers that change."""
        if isinstance(value, Mapping):
            if depth > _MAX_DEPTH:
                return REDACTED
            out: dict[Any, Any] | None = None
            for key, item in value.items():
                if isinstance(key, str) and self.matches(key):
                    new: Any = REDACTED
                elif type(item) in _SCALARS:
                    continue
                else:
                    new = self._walk(item, depth + 1)
                if new is not item:
                    out = dict(value) if out is None else out
                    out[key] = new
            return value if out is None else out
        if isinstance(value, (list, tuple)):
            if depth > _MAX_DEPTH:
                return REDACTED
            items = [self._walk(item, depth + 1) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items if isinstance(value, list) else tuple(items)
        return value

    def secrets(self, data: Any) -> list[str]:
        """The scalar values `redact` would hide, as text, longest first."""
        found: list[str] = []
        _collect(data, self, False, found, 0)
        return sorted(set(found), key=len, reverse=True)

    def scrub(self, text: str, data: Any) -> str:
        """`text` with every secret value of `data` replaced by `REDACTED` (for messages that
        quote data, such as a schema validator's)."""
        for secret in self.secrets(data):
            text = text.replace(repr(secret), REDACTED)
            if len(secret) >= 3:
                text = text.replace(secret, REDACTED)
        return text

    def record(self, record: HandoffRecord) -> HandoffRecord:
        """`record` with its request context and result redacted (itself if nothing matched)."""
        context = self.redact(record.request.context)
        result = self.redact(record.result)
        if context is record.request.context and result is record.result:
            return record
        from engine.lifecycle.models import evolve  # here: the lifecycle imports this module

        request = record.request.model_copy(update={"context": context})
        # Not `model_copy`: records a manager built on its fast path share a frozen
        # fields-set marker that pydantic's copy tries to update.
        return evolve(record, {"request": request, "result": result})


def _parse(pattern: object) -> tuple[str, str]:
    """(kind, literal) of one key pattern: exact `name`, prefix `name*`, suffix `*name` or
    inner `*name*`; anything else is a UsageError."""
    text = normalize(pattern) if isinstance(pattern, str) else ""
    if PATTERN.fullmatch(text) is None:
        raise UsageError(
            f"redact key pattern {pattern!r} must be a name of letters, digits, '_', '-' or "
            "'.', with an optional '*' at the start and/or the end"
        )
    starts, ends = text.startswith("*"), text.endswith("*")
    kind = {(False, False): "exact", (False, True): "prefix", (True, False): "suffix",
            (True, True): "inner"}[(starts, ends)]
    return kind, text.strip("*")


def _collect(value: Any, redactor: Redactor, hidden: bool, found: list[str], depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            secret = hidden or (isinstance(key, str) and redactor.matches(key))
            _collect(item, redactor, secret, found, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect(item, redactor, hidden, found, depth + 1)
    elif hidden and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        found.append(str(value))


DEFAULT_REDACTOR = Redactor()
"""The default policy, for stores and exports that have no config at hand."""
