"""`open_store`: the store a location names: a postgresql:// URL or a SQLite file path.

The one place that tells the two apart, for `Engine(store=...)` and `handoff records --store`.
PostgreSQL support is imported only when a URL asks for it.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import StoreError, UsageError
from engine.records.store import Store
from engine.stores.postgres_options import PostgresOptions, is_postgres_url
from engine.stores.sqlite import SQLiteStore

SQLITE_URL = "sqlite:///"
INSTALL_HINT = "PostgreSQL support is not installed: pip install 'handoff-engine[postgres]'"


def open_store(location: str | Path, *, readonly: bool = False, create: bool = True) -> Store:
    """A `PostgresStore` for a postgresql:// (or postgres://) URL, else a `SQLiteStore` file,
    named by its path or a `sqlite:///path` URL. Another URL is a UsageError.

    `readonly` opens for reading only; `create=False` refuses to create a missing store.
    """
    if isinstance(location, str) and is_postgres_url(location):
        options = PostgresOptions.parse(location)  # a bad URL fails before any import
        try:
            from engine.stores.postgres import PostgresStore
        except ImportError as error:
            raise StoreError(options.location, INSTALL_HINT) from error
        return PostgresStore(options, readonly=readonly, create=create)
    return SQLiteStore(sqlite_path(location), readonly=readonly, create=create)


def sqlite_path(location: str | Path) -> str | Path:
    """The file a SQLite location names. A path is itself; a URL is read as SQLAlchemy reads
    one: what follows `sqlite:///` is the path, so `sqlite:///records.db` is relative and
    `sqlite:////var/lib/records.db` absolute (`sqlite:///C:/data/records.db` on Windows).
    UsageError for a URL of another kind (a path holds no `://`)."""
    if not isinstance(location, str):
        return location
    if location[:len(SQLITE_URL)].lower() == SQLITE_URL:
        return location[len(SQLITE_URL):]
    if "://" in location:
        raise UsageError(f"{location!r}: not a store: expected a SQLite file path, a "
                         "sqlite:///path URL or a postgresql:// URL")
    return location
