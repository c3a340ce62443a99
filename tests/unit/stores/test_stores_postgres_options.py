"""PostgresStore settings from URLs and keywords (no server needed), and store locations."""

from __future__ import annotations

import re
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.stores import SQLiteStore, open_store
from engine.stores.locations import sqlite_path
from engine.stores.postgres_options import PostgresOptions, is_postgres_url


def test_defaults_and_location_without_password() -> None:
    options = PostgresOptions.parse("postgresql://ops:s3cret@db.internal:5433/handoffs")
    assert (options.schema, options.pool_size) == ("handoff", 8)
    assert (options.statement_timeout_s, options.connect_timeout_s) == (30.0, 5.0)
    assert options.location == "postgresql://ops@db.internal:5433/handoffs?schema=handoff"
    assert options.conninfo == "postgresql://ops:s3cret@db.internal:5433/handoffs"
    assert options.channel == "handoff:handoff"


def test_url_options_keywords_win_and_libpq_parameters_pass_through() -> None:
    url = (
        "postgres://db/x?schema=calls&pool_size=3&statement_timeout_s=2.5&connect_timeout_s=1"
        "&sslmode=require&options=-c%20work_mem%3D8MB"
    )
    options = PostgresOptions.parse(url, pool_size=5, statement_timeout_s=None)
    assert (options.schema, options.pool_size, options.connect_timeout_s) == ("calls", 5, 1.0)
    assert options.statement_timeout_s == 2.5  # None means "not given" for a keyword
    assert options.conninfo == "postgres://db/x?sslmode=require"
    settings = options.connect_kwargs(origin="abc", role="pool", readonly=True)
    assert settings["options"] == (
        "-c work_mem=8MB -c statement_timeout=2500"
        " -c default_transaction_read_only=on"
    )
    assert settings["application_name"] == "handoff-engine pool abc"
    assert settings["connect_timeout"] == 1
    unlimited = PostgresOptions.parse("postgresql:///x?statement_timeout_s=0")
    assert unlimited.statement_timeout_s is None
    assert PostgresOptions.parse("postgresql:///x", statement_timeout_s=0).statement_timeout_s \
        is None
    assert "statement_timeout" not in unlimited.connect_kwargs(
        origin="o", role="pool", readonly=False
    )["options"]


@pytest.mark.parametrize(
    ("url", "overrides", "message"),
    [
        ("mysql://db/x", {}, "not a PostgreSQL URL"),
        ("postgresql://u:pw@db/x?pool_size=0", {}, "pool_size must be a number > 0, got '0'"),
        ("postgresql://db/x?pool_size=2.5", {}, "pool_size must be a whole number"),
        ("postgresql://db/x", {"statement_timeout_s": "soon"}, "statement_timeout_s must be"),
        ("postgresql://db/x?connect_timeout_s=-1", {}, "connect_timeout_s must be a number > 0"),
        ("postgresql://db/x?schema=Calls", {}, "schema must be 1-55 lowercase"),
        ("postgresql://db/x", {"schema": "x" * 56}, "schema must be 1-55 lowercase"),
        ("postgresql://db/x", {"poolsize": 3}, "unknown PostgresStore option(s): poolsize"),
        ("postgresql://db:99999/x", {},
         "not a valid PostgreSQL URL (the port is out of range 0-65535): 'postgresql://.../x'"),
        ("postgresql://db:five/x", {}, "not a valid PostgreSQL URL (the port is not a number)"),
        ("postgresql://u:pw@[::1/x", {}, "not a valid PostgreSQL URL (a '[' without its ']'): "
                                         "'postgresql://...@[::1/x'"),
        # a password urllib reads as a port (no host) or cuts at an unescaped '/': never shown
        ("postgresql://u:pw/x", {}, "(the port is not a number): 'postgresql://.../x'"),
        ("postgresql://u:p/pw@db:99999/x", {}, "number): 'postgresql://...@db:99999/x'"),
    ],
)
def test_bad_settings_are_usage_errors(
    url: str, overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=re.escape(message)) as caught:
        PostgresOptions.parse(url, **overrides)
    assert "pw" not in str(caught.value)  # the password, however the URL is broken


def test_open_store_tells_urls_from_files(tmp_path: Path) -> None:
    assert is_postgres_url("postgresql://db/x") and is_postgres_url("POSTGRES://db/x")
    assert not is_postgres_url("records.db") and not is_postgres_url("postgresql.db")
    store = open_store(tmp_path / "records.db")
    assert isinstance(store, SQLiteStore)
    store.close()
    with pytest.raises(UsageError, match="pool_size"):
        open_store("postgresql://db/x?pool_size=none")  # refused before connecting


def test_a_sqlite_url_names_its_file_as_sqlalchemy_reads_it_and_another_url_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What follows `sqlite:///` is the path: relative, or absolute with a fourth slash."""
    monkeypatch.chdir(tmp_path)
    absolute = tmp_path / "absolute.db"
    for url in ("sqlite:///relative.db", f"sqlite:///{absolute}", "SQLite:///upper.db"):
        with closing(open_store(url)) as store:
            assert isinstance(store, SQLiteStore)
    assert sorted(path.name for path in tmp_path.iterdir() if path.suffix == ".db") == [
        "absolute.db", "relative.db", "upper.db"]
    assert str(sqlite_path("sqlite:///C:/data/records.db")) == "C:/data/records.db"
    with pytest.raises(UsageError, match=r"'mysql://db/x': not a store: expected a SQLite file"):
        open_store("mysql://db/x")


def test_a_postgres_url_without_the_extra_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"  # as if the extra were not installed
        "from engine.errors import StoreError\n"
        "from engine.stores import open_store\n"
        "try:\n"
        "    open_store('postgresql://ops:pw@db/x')\n"
        "except StoreError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "postgresql://ops@db/x?schema=handoff: PostgreSQL support is not installed:"
        " pip install 'handoff-engine[postgres]'"
    )
