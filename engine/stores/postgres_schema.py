"""A PostgreSQL store's schema: applying its forward migrations (`postgres_migrations`), the
version check, and the one boundary where psycopg errors become `StoreError`s naming the
database and the problem.

No record logic here; `engine.stores.postgres` builds the store on top.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import PoolTimeout

from engine.errors import StoreError
from engine.stores.postgres_migrations import MIGRATIONS

RECORDS = "handoff_records"
MOVES = "handoff_moves"
VERSIONS = "handoff_schema"
SCHEMA_VERSION = MIGRATIONS[-1][0]


def prepare(
    conn: psycopg.Connection, schema: str, location: str, *, readonly: bool, create: bool
) -> None:
    """Check the store in `schema` and bring it up to `SCHEMA_VERSION` (unless `readonly`).

    Replicas starting together take turns on an advisory lock; only one migrates.
    """
    with conn.transaction():
        if not readonly:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"handoff {schema}",))
        version = _version(conn, schema, location)
        if version > SCHEMA_VERSION:
            detail = f"store schema version {version} is newer than this engine ({SCHEMA_VERSION})"
            raise StoreError(location, detail)
        if version == SCHEMA_VERSION:
            return
        if version == 0 and (readonly or not create):
            raise StoreError(location, f"no handoff store in schema {schema!r}")
        if readonly:
            raise StoreError(location, f"store schema version {version} is older than this"
                             f" engine ({SCHEMA_VERSION}); open it read-write once to migrate it")
        _migrate(conn, schema, version)


def _version(conn: psycopg.Connection, schema: str, location: str) -> int:
    """The schema version of the store in `schema`; 0 if there is none yet."""
    tables = conn.execute(
        "SELECT to_regclass(%s), to_regclass(%s)",
        (f'"{schema}".{VERSIONS}', f'"{schema}".{RECORDS}'),
    ).fetchone()
    assert tables is not None
    if tables[0] is None:
        if tables[1] is not None:
            detail = f"not a handoff store: {schema}.{RECORDS} has no version table"
            raise StoreError(location, detail)
        return 0
    row = conn.execute(f'SELECT max(version) FROM "{schema}".{VERSIONS}').fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def _migrate(conn: psycopg.Connection, schema: str, current: int) -> None:
    quoted = f'"{schema}"'
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted}")
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {quoted}.{VERSIONS} (version integer PRIMARY KEY,"
        " applied_at timestamptz NOT NULL DEFAULT now())"
    )
    for version, statements in MIGRATIONS:
        if version > current:
            conn.execute(statements.replace("{s}", quoted).encode())
            conn.execute(f"INSERT INTO {quoted}.{VERSIONS} (version) VALUES (%s)", (version,))


def explain(error: Exception, *, lost: bool = False) -> str:
    """What went wrong, in words an operator can act on; `lost`: the session died meanwhile."""
    if isinstance(error, PoolTimeout):
        return f"no database connection in time (pool exhausted or server down): {error}"
    text = str(error).strip()
    first_line = text.splitlines()[0] if text else type(error).__name__
    if lost or isinstance(error, (pg_errors.AdminShutdown, pg_errors.CrashShutdown)):
        return f"lost the connection to the database ({first_line}); the next call reconnects"
    if isinstance(error, pg_errors.QueryCanceled):
        return f"a statement ran past statement_timeout_s and was cancelled ({first_line})"
    if isinstance(error, pg_errors.ReadOnlySqlTransaction):
        return "the store is read-only"
    if isinstance(error, pg_errors.UndefinedTable):
        return f"the store's tables are missing ({first_line})"
    if isinstance(error, pg_errors.ProgramLimitExceeded):  # an OperationalError, yet no outage
        return f"a value is over a limit of the database ({first_line})"
    if isinstance(error, psycopg.OperationalError):
        return f"cannot reach the database: {first_line}"
    return f"PostgreSQL error: {first_line}"


@contextmanager
def boundary(location: str) -> Iterator[None]:
    """Translate any psycopg or pool error raised inside into a `StoreError` for `location`."""
    try:
        yield
    except (psycopg.Error, PoolTimeout) as error:
        raise StoreError(location, explain(error)) from error
