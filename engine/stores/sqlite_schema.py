"""Opening a SQLite store file: connection settings, schema creation and versioning, and the
one boundary where `sqlite3` errors become `StoreError`s naming the path and the problem.

No record logic here; `engine.stores.sqlite` builds the store on top.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from engine.errors import StoreError

SCHEMA_VERSION = 1
APPLICATION_ID = 0x48414E44  # "HAND": marks a file as a handoff-engine store
TABLE = "handoff_records"
Synchronous = Literal["FULL", "NORMAL"]
CACHE_KIB = 16_384  # page cache per connection (SQLite's default is 2 MiB)

_SCHEMA = f"""
CREATE TABLE {TABLE} (
    seq INTEGER PRIMARY KEY,  -- insertion order (rows are never deleted)
    record_id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    from_agent TEXT NOT NULL,
    to_agent TEXT NOT NULL,
    created_us INTEGER NOT NULL,
    deadline_us INTEGER,
    version INTEGER NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX {TABLE}_status ON {TABLE} (status, created_us);
CREATE INDEX {TABLE}_created ON {TABLE} (created_us);
CREATE INDEX {TABLE}_from ON {TABLE} (from_agent, created_us);
CREATE INDEX {TABLE}_to ON {TABLE} (to_agent, created_us);
CREATE INDEX {TABLE}_deadline ON {TABLE} (deadline_us) WHERE deadline_us IS NOT NULL;
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""


def explain(path: Path, error: sqlite3.Error) -> str:
    """What is wrong with the store at `path`, in words an operator can act on."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_NOTADB" or "not a database" in str(error):
        return "not a SQLite database (corrupted, or some other kind of file)"
    if name == "SQLITE_CORRUPT" or "malformed" in str(error):
        return f"the SQLite database is corrupted ({error})"
    if name in ("SQLITE_READONLY", "SQLITE_READONLY_DBMOVED") or "readonly" in str(error):
        return f"the store is read-only ({error})"
    if name == "SQLITE_CANTOPEN" or "unable to open" in str(error):
        return _cannot_open(path)
    if name == "SQLITE_BUSY" or "locked" in str(error):
        return f"the store stayed locked by another writer ({error})"
    return f"SQLite error: {error}"


def _cannot_open(path: Path) -> str:
    parent = path.parent
    if not parent.exists():
        return f"cannot open: folder {str(parent)!r} does not exist"
    if not parent.is_dir():
        return f"cannot open: {str(parent)!r} is not a folder"
    if not os.access(parent, os.W_OK) or not path.exists():
        return f"cannot create the store: folder {str(parent)!r} is read-only or not writable"
    return "cannot open the file (permissions, or a read-only location)"


@contextmanager
def boundary(path: Path) -> Iterator[None]:
    """Translate any `sqlite3.Error` raised inside into a `StoreError` for `path`."""
    try:
        yield
    except sqlite3.Error as error:
        raise StoreError(path, explain(path, error)) from error


def connect(
    path: Path, *, create: bool, readonly: bool, synchronous: Synchronous, timeout_s: float
) -> sqlite3.Connection:
    """An autocommit connection to a checked, up-to-date store file (created if allowed)."""
    if path.is_dir():
        raise StoreError(path, "is a folder, not a store file")
    if not path.exists() and (readonly or not create):
        raise StoreError(path, "no such store file")
    uri = f"{path.resolve().as_uri()}?mode={'ro' if readonly else 'rwc'}"
    with boundary(path):
        conn = sqlite3.connect(
            uri, uri=True, timeout=timeout_s, isolation_level=None, check_same_thread=False
        )
        try:
            _prepare(conn, path, readonly=readonly, synchronous=synchronous)
        except BaseException:
            conn.close()
            raise
    return conn


def _prepare(
    conn: sqlite3.Connection, path: Path, *, readonly: bool, synchronous: Synchronous
) -> None:
    app_id, version, tables = _identity(conn)
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        shown = ", ".join(sorted(tables)) or "none"
        raise StoreError(path, f"not a handoff store: a foreign SQLite database (tables: {shown})")
    if version > SCHEMA_VERSION:
        raise StoreError(
            path, f"store schema version {version} is newer than this engine ({SCHEMA_VERSION})"
        )
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    if app_id == 0:
        if readonly:
            raise StoreError(path, "empty file: not a handoff store yet")
        _create(conn)


def _identity(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    tables = {name for (name,) in names if not name.startswith("sqlite_")}
    return int(app_id), int(version), tables


def _create(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        app_id, _, _ = _identity(conn)  # another process may have created it meanwhile
        if app_id == 0:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
