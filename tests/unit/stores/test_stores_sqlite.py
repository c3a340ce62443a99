"""SQLiteStore specifics: durable reopen, schema versioning, bad files and locations."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.errors import StoreError
from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.stores import SQLiteStore
from engine.stores.sqlite_schema import APPLICATION_ID, SCHEMA_VERSION

MakeRecord = Callable[..., HandoffRecord]


def test_schema_created_versioned_and_in_wal_mode(tmp_path: Path, record: MakeRecord) -> None:
    path = tmp_path / "records.db"
    with SQLiteStore(path) as store:
        store.add(record(1))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with SQLiteStore(path, create=False) as again:
        assert again.get("h-1") == record(1)


def test_two_managers_on_one_file_retry_and_respect_the_table(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    one = HandoffManager(store=SQLiteStore(path))
    two = HandoffManager(store=SQLiteStore(path))
    rid = one.create_handoff(
        HandoffRequest(from_agent="a", to_agent="b", task_description="t")
    ).record_id
    two.accept(rid)
    assert one.start(rid).version == 3  # one sees two's accept: no lost move
    with pytest.raises(ValueError, match="Cannot accept handoff in state 'in_progress'"):
        one.accept(rid)


def test_missing_file_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no such store file") as caught:
        SQLiteStore(tmp_path / "nope.db", create=False)
    assert caught.value.path == str(tmp_path / "nope.db")
    assert not (tmp_path / "nope.db").exists()


def test_corrupted_file(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    path.write_bytes(b"this is not a database at all\n" * 200)
    with pytest.raises(StoreError, match="not a SQLite database") as caught:
        SQLiteStore(path)
    assert str(path) in str(caught.value)
    assert caught.value.__cause__ is not None


def test_damaged_store_pages(tmp_path: Path, record: MakeRecord) -> None:
    path = tmp_path / "records.db"
    with SQLiteStore(path) as store:
        store.put_many(record(n) for n in range(300))
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)  # keep the header, wreck every other page
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=re.escape(str(path))), SQLiteStore(path) as store:
        store.query()


def test_foreign_sqlite_database(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=r"not a handoff store: a foreign SQLite database"):
        SQLiteStore(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0  # left untouched
    conn.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "records.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this engine"):
        SQLiteStore(path)


def test_read_only_location(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # permissions do not stop root: use a location no one can write
        target = Path("/proc/handoff-records.db")
    else:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o555)
        target = folder / "records.db"
    with pytest.raises(StoreError, match=r"cannot (create|open)") as caught:
        SQLiteStore(target)
    assert caught.value.path == str(target)


def test_folder_in_place_of_a_file_or_parent(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        SQLiteStore(tmp_path)
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="is not a folder"):
        SQLiteStore(blocker / "records.db")


def test_read_only_store_refuses_writes(tmp_path: Path, record: MakeRecord) -> None:
    path = tmp_path / "records.db"
    SQLiteStore(path).close()
    with SQLiteStore(path, readonly=True) as store:
        assert store.query() == []
        with pytest.raises(StoreError, match="read-only"):
            store.add(record(1))


def test_closed_store(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "records.db")
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.get("h-1")


def test_group_commit_shares_one_commit_and_fails_only_the_conflicting_job(
    tmp_path: Path, record: MakeRecord, racing_writer: Callable[..., Any]
) -> None:
    store = SQLiteStore(tmp_path / "records.db")
    store.put_many(record(n) for n in range(4))
    outcomes: dict[str, str] = {}
    write = racing_writer(store, outcomes)

    jobs = [("a", record(0, version=2)), ("b", record(1, version=2)),
            ("c", record(2, version=2)), ("c-again", record(2, version=2, status="rejected"))]
    with store._lock:  # hold the connection: every writer queues behind it
        threads = [threading.Thread(target=write, args=job) for job in jobs]
        for thread in threads:
            thread.start()
        while len(store._group._queue) < len(jobs):
            time.sleep(0.001)
    for thread in threads:
        thread.join()
    assert store._group.commits == 1 and store._group.jobs == 4
    assert outcomes == {"a": "ok", "b": "ok", "c": "ok", "c-again": "conflict"}
    assert [r.version for r in store.query()] == [2, 2, 2, 1]
    assert store.get("h-2").status.value == "pending"
    store.close()


def test_concurrent_managers_threads_group_commit(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "records.db")
    manager = HandoffManager(store=store)
    request = HandoffRequest(from_agent="a", to_agent="b", task_description="t")
    ids = [manager.create_handoff(request).record_id for _ in range(40)]

    def drive(part: list[str]) -> None:
        for record_id in part:
            manager.accept(record_id)
            manager.start(record_id)

    threads = [threading.Thread(target=drive, args=(ids[i::4],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(record.version == 3 for record in store.query())
    assert store._group.jobs == 40 + 80
    store.close()
