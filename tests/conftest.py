"""Shared test helpers: writing config sets to temporary folders; importing an adapter's
framework (a skip with the install command, or a failure where HANDOFF_REQUIRE_ADAPTERS=1); a
fresh PostgreSQL schema per test (a skip without a server, or a failure where
HANDOFF_REQUIRE_POSTGRES=1)."""

from __future__ import annotations

import atexit
import itertools
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings

from tests.extras import need, unavailable

_CACHE_OWNER = "HANDOFF_TEST_MODEL_CACHE_OWNER"

# CI explores the same examples on every run (a red build must be reproducible); local runs
# keep hypothesis's random exploration, which is how new failures get found.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Fitted example models are kept on disk between processes (engine.routing.model_store): the
# suite keeps its own, never the user's cache: made fresh by the first pytest process of a run,
# shared by its workers (which inherit the variables) and the CLI processes they start, and
# removed when that process exits.
if os.environ.get(_CACHE_OWNER) is None:
    os.environ[_CACHE_OWNER] = str(os.getpid())
    os.environ["HANDOFF_MODEL_CACHE"] = tempfile.mkdtemp(prefix="handoff-models-")
    atexit.register(shutil.rmtree, os.environ["HANDOFF_MODEL_CACHE"], ignore_errors=True)

REPO = Path(__file__).resolve().parent.parent
CONFIGS = REPO / "configs"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def framework(module: str, extra: str) -> ModuleType:
    """Import an adapter's framework, or skip the calling test module when it is missing (a
    failure where HANDOFF_REQUIRE_ADAPTERS=1, as in CI)."""
    return need(module, extra=extra, group="adapters")


@pytest.fixture
def write_files(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write `{relative path: text}` below a temporary folder and return the folder."""

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return write


POSTGRES = os.environ.get("HANDOFF_TEST_POSTGRES", "postgresql://127.0.0.1:5432/test")
_RUN = f"test_{os.getpid()}_{secrets.token_hex(3)}"  # unique across concurrent test runs
_SCHEMAS = itertools.count()


def _admin(url: str) -> object:
    import psycopg

    return psycopg.connect(url, autocommit=True, connect_timeout=3)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The test server's URL (HANDOFF_TEST_POSTGRES); at the end, drops any schema this run
    left behind."""
    try:
        conn = _admin(POSTGRES)
    except ImportError:
        reason = "psycopg is not installed: pip install -e '.[test,postgres]'"
    except Exception as error:  # psycopg.Error, without importing psycopg at module level
        reason = f"no PostgreSQL server at {POSTGRES} ({str(error).splitlines()[0]})"
    else:
        conn.close()  # type: ignore[attr-defined]
        reason = ""
    if reason:
        unavailable(reason, group="postgres")
    yield POSTGRES
    with _admin(POSTGRES) as conn:  # type: ignore[attr-defined]
        found = conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (f"{_RUN}%",)
        ).fetchall()
        for (schema,) in found:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A store URL on a schema of its own (the store creates it), dropped after the test."""
    schema = f"{_RUN}_{next(_SCHEMAS)}"
    joiner = "&" if "?" in postgres_server else "?"
    yield f"{postgres_server}{joiner}schema={schema}"
    with _admin(postgres_server) as conn:  # type: ignore[attr-defined]
        conn.execute("SET lock_timeout = '10s'")
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
