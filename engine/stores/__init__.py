"""Record stores behind the `Store` protocol (`engine.records.store`): in memory, SQLite and
PostgreSQL, plus change feeds (export and import live in `engine.lifecycle.transfer`). Stores
keep and version records; they never decide which lifecycle moves are legal. `PostgresStore`
loads on first use (it needs the `postgres` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.records.store import RecordQuery, Store
from engine.stores.locations import open_store
from engine.stores.memory import MemoryStore
from engine.stores.sqlite import SQLiteStore

__all__ = ["MemoryStore", "PostgresStore", "RecordQuery", "SQLiteStore", "Store", "open_store"]

if TYPE_CHECKING:
    from engine.stores.postgres import PostgresStore


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":
        from engine.stores.postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module 'engine.stores' has no attribute {name!r}")
