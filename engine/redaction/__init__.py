"""The redaction policy: which keys hold secrets, which values look like one, and copies of
data and records with them hidden.

Keys match by their words (`keys`) or by config globs; values by their shape (`values`); both
in linear time. Pure: it reads data and returns copies; it never stores, logs or decides what
is stored (the lifecycle manager, the engine and the exports call it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from engine.records.models import HandoffRecord, HandoffRequest, evolve, new_move
from engine.redaction.keys import Globs, names_secret, words
from engine.redaction.values import MIN_CHARS, hide, is_card_number

REDACTED = "[redacted]"
"""What a secret value is replaced with."""

_MAX_DEPTH = 200  # deeper data is hidden whole rather than walked
_PLAIN = frozenset({float, bool, type(None)})
_CACHE_SIZE = 4096
_CACHED_KEY_CHARS = 256
T = TypeVar("T")


class Redactor:
    """Hides the values of secret-looking keys and the secret-looking parts of text.

    `Redactor()` applies the built-in key words and value shapes; `Redactor(["customer_id"])`
    adds a config glob; `defaults=False` drops the built-in key words, `values=False` the value
    shapes. A bad glob is a `UsageError`.
    """

    def __init__(
        self, keys: Iterable[str] = (), *, defaults: bool = True, values: bool = True
    ) -> None:
        self.patterns: tuple[str, ...] = tuple(keys)
        self.defaults = defaults
        self.values = values
        self._globs = Globs(self.patterns)
        self._cache: dict[str, bool] = {}

    def matches(self, key: str) -> bool:
        """True if `key`'s value must be hidden. Linear in the key's length."""
        hit = self._cache.get(key)
        if hit is None:
            key_words = words(key)
            hit = (self.defaults and names_secret(key_words)) or self._globs.match(key, key_words)
            if len(key) <= _CACHED_KEY_CHARS:
                if len(self._cache) >= _CACHE_SIZE:
                    self._cache.clear()
                self._cache[key] = hit
        return hit

    def text(self, text: str) -> str:
        """`text` with the secret-looking values in it (card numbers, Bearer tokens, JWTs,
        PEM private keys) replaced by `REDACTED`; `text` itself when there is none."""
        return hide(text, REDACTED) if self.values else text

    def redact(self, data: T) -> T:
        """A copy of `data` with the value of every matching key (at any depth, in mappings
        inside lists too) replaced by `REDACTED`, and secret-looking values in its text
        hidden; `data` itself when nothing matched."""
        return self._walk(data, 0)  # type: ignore[no-any-return]

    def _walk(self, value: Any, depth: int) -> Any:
        """`value` with secrets hidden; copies only the containers that change."""
        kind = type(value)
        if kind is str:
            return hide(value, REDACTED) if self.values and len(value) >= MIN_CHARS else value
        if kind in _PLAIN:
            return value
        if kind is int:
            return REDACTED if self.values and is_card_number(value) else value
        if isinstance(value, Mapping):
            return REDACTED if depth > _MAX_DEPTH else self._mapping(value, depth)
        if isinstance(value, (list, tuple)):
            if depth > _MAX_DEPTH:
                return REDACTED
            items = [self._walk(item, depth + 1) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return items if isinstance(value, list) else tuple(items)
        return value

    def _mapping(self, value: Mapping[Any, Any], depth: int) -> Any:
        out: dict[Any, Any] | None = None
        values = self.values
        for key, item in value.items():
            if isinstance(key, str) and self.matches(key):
                new: Any = REDACTED
            elif type(item) in _PLAIN or (type(item) is str and (len(item) < MIN_CHARS
                                                                 or not values)):
                continue
            else:
                new = self._walk(item, depth + 1)
            if new is not item:
                out = dict(value) if out is None else out
                out[key] = new
        return value if out is None else out

    def secrets(self, data: Any) -> list[str]:
        """The scalar values `redact` would hide under secret keys, as text, longest first."""
        found: list[str] = []
        _collect(data, self, False, found, 0)
        return sorted(set(found), key=len, reverse=True)

    def scrub(self, text: str, data: Any) -> str:
        """`text` with every secret value of `data` replaced by `REDACTED`, and the
        secret-looking values of `text` itself (for messages that quote data, such as a
        schema validator's)."""
        for secret in self.secrets(data):
            text = text.replace(repr(secret), REDACTED)
            if len(secret) >= 3:
                text = text.replace(secret, REDACTED)
        return self.text(text)

    def request(self, request: HandoffRequest) -> HandoffRequest:
        """`request` with its context redacted and the secret-looking values of its task text
        hidden (itself if nothing matched)."""
        context = self.redact(request.context)
        task = self.text(request.task_description)
        if context is request.context and task is request.task_description:
            return request
        return request.model_copy(update={"context": context, "task_description": task})

    def record(self, record: HandoffRecord) -> HandoffRecord:
        """`record` with its request, result and reasons redacted (itself if nothing matched)."""
        changes: dict[str, Any] = {}
        request = self.request(record.request)
        if request is not record.request:
            changes["request"] = request
        result = self.redact(record.result)
        if result is not record.result:
            changes["result"] = result
        response = record.response
        if response is not None and self.text(response.reason) is not response.reason:
            changes["response"] = response.model_copy(
                update={"reason": self.text(response.reason)})
        history = tuple(
            move if self.text(move.reason) is move.reason else new_move(
                move.from_, move.to, move.trigger, move.at, self.text(move.reason), move.actor)
            for move in record.history
        )
        if any(new is not old for new, old in zip(history, record.history, strict=True)):
            changes["history"] = history
        # Not `model_copy`: records a manager built on its fast path share a frozen
        # fields-set marker that pydantic's copy tries to update.
        return evolve(record, changes) if changes else record


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
