"""Settings of a `PostgresStore`, read from a postgresql:// URL and keyword arguments.

Validates them and keeps the password out of `location` (the only form ever printed). No
connection is made here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, parse_qsl, urlencode, urlsplit, urlunsplit

from engine.errors import UsageError

SCHEMES = ("postgresql", "postgres")
DEFAULT_SCHEMA = "handoff"
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,54}")  # the channel "handoff:<schema>" fits 63
_OPTIONS = ("schema", "pool_size", "statement_timeout_s", "connect_timeout_s")
_PASSWORD = re.compile(r"(//[^/@:]*:)[^@/]*@")
_UNREADABLE = (("out of range", "the port is out of range 0-65535"),
               ("could not be cast", "the port is not a number"),
               ("IPv6", "a '[' without its ']'"))
"""Words of urllib's ValueError -> what to say instead (its message may quote a password)."""


def is_postgres_url(text: str) -> bool:
    """True for a postgresql:// or postgres:// URL."""
    return text.partition("://")[0].lower() in SCHEMES and "://" in text


@dataclass(frozen=True, slots=True)
class PostgresOptions:
    """`conninfo` goes to libpq (the URL minus the store's own options); `location` is the URL
    without its password, for messages. `statement_timeout_s` None means no limit (given as 0
    in a URL or a keyword)."""

    conninfo: str
    location: str
    schema: str = DEFAULT_SCHEMA
    pool_size: int = 8
    statement_timeout_s: float | None = 30.0
    connect_timeout_s: float = 5.0
    libpq_options: str = ""

    @property
    def channel(self) -> str:
        """The LISTEN/NOTIFY channel of this schema's records."""
        return f"handoff:{self.schema}"

    @classmethod
    def parse(cls, url: str, **overrides: Any) -> PostgresOptions:
        """Options from `url` and keyword `overrides` (which win over the URL's query).

        The URL may carry `schema`, `pool_size`, `statement_timeout_s` and `connect_timeout_s`
        as query parameters; any other parameter is passed to libpq untouched.
        """
        if not is_postgres_url(url):
            raise UsageError(f"not a PostgreSQL URL (postgresql://...): {_redact(url)!r}")
        parts = _split(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        given = {key: value for key, value in query if key in _OPTIONS}
        given.update({key: value for key, value in overrides.items() if value is not None})
        unknown = sorted(set(overrides) - set(_OPTIONS))
        if unknown:
            raise UsageError(f"unknown PostgresStore option(s): {', '.join(unknown)}")
        passed = [(key, value) for key, value in query if key not in (*_OPTIONS, "options")]
        libpq_query = urlencode(passed)
        schema = _schema(given.get("schema", DEFAULT_SCHEMA))
        host = parts.hostname or ""
        user = f"{parts.username}@" if parts.username else ""
        port = f":{parts.port}" if parts.port else ""
        return cls(
            conninfo=urlunsplit(parts._replace(query=libpq_query)),
            location=f"{parts.scheme}://{user}{host}{port}{parts.path}?schema={schema}",
            schema=schema,
            pool_size=_pool_size(given.get("pool_size", 8)),
            statement_timeout_s=_timeout(given.get("statement_timeout_s", 30.0)),
            connect_timeout_s=_positive("connect_timeout_s", given.get("connect_timeout_s", 5.0)),
            libpq_options=dict(query).get("options", ""),
        )

    def connect_kwargs(self, *, origin: str, role: str, readonly: bool) -> dict[str, Any]:
        """libpq settings for one connection of this store; `origin` names the store in
        `pg_stat_activity` (application_name `handoff-engine <role> <origin>`)."""
        settings = [self.libpq_options]
        if self.statement_timeout_s is not None:
            settings.append(f"-c statement_timeout={round(self.statement_timeout_s * 1000)}")
        if readonly:
            settings.append("-c default_transaction_read_only=on")
        return {
            "application_name": f"handoff-engine {role} {origin}",
            "connect_timeout": max(1, round(self.connect_timeout_s)),
            "options": " ".join(setting for setting in settings if setting),
            "keepalives": 1,
            "keepalives_idle": 10,
            "keepalives_interval": 5,
            "keepalives_count": 3,
        }


def _schema(name: Any) -> str:
    if not isinstance(name, str) or not _SCHEMA_NAME.fullmatch(name):
        raise UsageError(
            f"schema must be 1-55 lowercase letters, digits or _ (not starting with a digit),"
            f" got {name!r}"
        )
    return name


def _positive(name: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number > 0:  # also refuses nan
        raise UsageError(f"{name} must be a number > 0, got {value!r}")
    return number


def _pool_size(value: Any) -> int:
    number = _positive("pool_size", value)
    if number != int(number):
        raise UsageError(f"pool_size must be a whole number >= 1, got {value!r}")
    return int(number)


def _timeout(value: Any) -> float | None:
    if value in (None, "", "none", 0, "0"):
        return None
    return _positive("statement_timeout_s", value)


def _split(url: str) -> SplitResult:
    """`url` in parts; a URL urllib cannot read (a port out of range or not a number, an
    unclosed `[`) is a UsageError saying why. Neither urllib's message nor what may hold a
    password is shown: a password with no host after it reads as a port, and one with an
    unescaped `/` in it as a path, so all before the last `@` (else before the path) is hidden."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (read to check: raises ValueError when out of range)
    except ValueError as error:
        why = next((reason for words, reason in _UNREADABLE if words in str(error)),
                   "urllib cannot read it")
        raise UsageError(f"not a valid PostgreSQL URL ({why}): {_hidden(url)!r}") from None
    return parts


def _hidden(url: str) -> str:
    """`url` with all before the last `@` hidden (else all before the path)."""
    scheme, _, rest = url.partition("://")
    if "@" in rest:
        return f"{scheme}://...@{rest.rpartition('@')[2]}"
    path = rest.find("/")
    return f"{scheme}://..." + (rest[path:] if path >= 0 else "")


def _redact(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:  # unreadable: mask whatever stands between `user:` and `@`
        return _PASSWORD.sub(r"\1***@", url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))
