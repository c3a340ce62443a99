"""Record stores behind the `Store` protocol: in memory and SQLite, plus export/import.

Stores keep and version records; they never decide which lifecycle moves are legal.
"""

from engine.stores.base import RecordQuery, Store
from engine.stores.memory import MemoryStore
from engine.stores.sqlite import SQLiteStore

__all__ = ["MemoryStore", "RecordQuery", "SQLiteStore", "Store"]
