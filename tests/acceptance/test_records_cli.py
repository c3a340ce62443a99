"""`handoff records` as an operator runs it: real processes over a real SQLite store and a
PostgreSQL store, and audit trails moved between the two both ways without losing a byte."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.stores import SQLiteStore, Store, open_store

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def handoff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "records", *map(str, args)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def fill(store: Store) -> list[str]:
    """Three records: completed (triage -> fraud), rejected (triage -> billing), pending."""
    now = [T0]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)
        return now[0]

    manager = HandoffManager(store=store, clock=clock, actor="ops",
                             pending_timeout_s=3600)  # a minute per reading: never overdue
    ids = []
    for to_agent in ("fraud", "billing", "fraud"):
        request = HandoffRequest(
            from_agent="triage", to_agent=to_agent, task_description=f"help from {to_agent}"
        )
        ids.append(manager.create_handoff(request, config_version="cfg-7").record_id)
    manager.accept(ids[0])
    manager.complete(ids[0], {"blocked": True})
    manager.reject(ids[1], "wrong desk")
    store.close()
    return ids


@pytest.fixture
def store_file(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "records.db"
    return path, fill(SQLiteStore(path))


@pytest.fixture(params=["sqlite", "postgres"])
def filled(request: pytest.FixtureRequest) -> tuple[str | Path, list[str]]:
    """`fill`ed records in a SQLite file or a PostgreSQL schema: (the --store value, ids)."""
    if request.param == "sqlite":
        return request.getfixturevalue("store_file")  # type: ignore[no-any-return]
    url: str = request.getfixturevalue("postgres_url")
    return url, fill(open_store(url))


@pytest.mark.slow
def test_list_show_and_history(filled: tuple[str | Path, list[str]]) -> None:
    path, ids = filled
    listed = handoff("list", "--store", path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ids
    assert lines[-1] == "3 of 3 record(s)"
    assert "completed" in lines[0] and "triage -> fraud" in lines[0]

    filtered = handoff(
        "list", "--store", path, "--agent", "fraud", "--status", "pending",
        "--since", "2026-03-01T09:00:00Z", "--until", "2026-03-01T10:00:00", "--format", "json",
    )
    assert filtered.returncode == 0, filtered.stderr
    document = json.loads(filtered.stdout)
    assert document["total"] == 1
    assert [r["record_id"] for r in document["records"]] == [ids[2]]

    shown = handoff("show", ids[0], "--store", path)
    assert shown.returncode == 0, shown.stderr
    assert "status:         completed" in shown.stdout
    assert "config version: cfg-7" in shown.stdout
    assert "accept   pending -> accepted  by ops  Accepted by receiving agent." in shown.stdout

    history = handoff("history", ids[1], "--store", path, "--format", "json")
    assert history.returncode == 0, history.stderr
    moves = json.loads(history.stdout)
    assert [(m["from"], m["to"], m["trigger"], m["reason"]) for m in moves] == [
        (None, "pending", "create", ""),
        ("pending", "rejected", "reject", "wrong desk"),
    ]


@pytest.mark.slow
def test_export_then_import_into_a_new_store(
    store_file: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, _ = store_file
    dump = tmp_path / "dump.jsonl"
    exported = handoff("export", "--store", path, "--format", "jsonl", "--output", dump)
    assert exported.returncode == 0, exported.stderr
    assert len(dump.read_text().splitlines()) == 3
    copy = tmp_path / "copy.db"
    imported = handoff("import", dump, "--store", copy)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == f"imported 3 record(s) into {copy}"
    with SQLiteStore(path) as original, SQLiteStore(copy) as restored:
        assert restored.query() == original.query()


@pytest.mark.slow
def test_bad_input_gets_a_message_not_a_traceback(
    store_file: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, ids = store_file
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not sqlite " * 100)
    bad_import = tmp_path / "bad.json"
    with SQLiteStore(path) as store:
        good = [record.model_dump(mode="json") for record in store.query()]
    bad_import.write_text(json.dumps([good[0], {**good[1], "status": "lost"}]))
    cases = [
        (("show", "h-unknown", "--store", path), 1, "No handoff record found with id 'h-unknown'."),
        (("list", "--store", garbage), 1, f"{garbage}: not a SQLite database"),
        (("import", bad_import, "--store", path), 1, "record #1 is invalid, nothing imported"),
        (("list", "--store", path, "--since", "yesterday"), 2, "not an ISO 8601 time"),
    ]
    for args, code, message in cases:
        done = handoff(*args)
        assert done.returncode == code, (args, done.stderr)
        assert message in done.stderr
        assert "Traceback" not in done.stderr
    with SQLiteStore(path) as store:
        assert [r.record_id for r in store.query()] == ids  # the failed import added nothing


def rich_record() -> HandoffRecord:
    """A record with what a careless copy would change: unicode, big floats, a deadline,
    nested context, an expiry."""
    manager = HandoffManager(clock=lambda: T0, pending_timeout_s=60)
    request = HandoffRequest(
        from_agent="triage", to_agent="claims", task_description="Schaden über 1e20 € ✓",
        context={"ratio": 1e20, "tiny": 5e-324, "nested": {"tags": ["a", "ß"]}, "none": None},
        priority=9, deadline=T0 + timedelta(seconds=30),
    )
    record_id = manager.create_handoff(request, config_version="cfg-ü").record_id
    (expired,) = manager.expire_overdue(now=T0 + timedelta(minutes=5))
    assert expired.record_id == record_id
    return expired


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_sqlite_to_postgres_and_back_is_lossless(
    postgres_url: str, tmp_path: Path, fmt: str
) -> None:
    source = tmp_path / "source.db"
    fill(SQLiteStore(source))
    with SQLiteStore(source) as store:
        store.put_many([rich_record()])
    first, second, third = (tmp_path / f"dump{n}.{fmt}" for n in (1, 2, 3))
    steps = [
        ("export", "--store", source, "--format", fmt, "--output", first),
        ("import", first, "--store", postgres_url),
        ("export", "--store", postgres_url, "--format", fmt, "--output", second),
        ("import", second, "--store", tmp_path / "back.db"),
        ("export", "--store", tmp_path / "back.db", "--format", fmt, "--output", third),
    ]
    for step in steps:
        done = handoff(*step)
        assert done.returncode == 0, (step, done.stderr)
    assert first.read_bytes() == second.read_bytes() == third.read_bytes()
    with SQLiteStore(source) as original, closing(open_store(postgres_url)) as copy:
        assert copy.query() == original.query()
        assert len(original.query()) == 4


@pytest.mark.slow
def test_bad_input_on_postgres_gets_a_message_not_a_traceback(
    postgres_url: str, tmp_path: Path
) -> None:
    url, ids = postgres_url, fill(open_store(postgres_url))
    bad_import = tmp_path / "bad.json"
    with closing(open_store(url)) as store:
        good = [record.model_dump(mode="json") for record in store.query()]
    bad_import.write_text(json.dumps([good[0], {**good[1], "status": "lost"}]))
    cases = [
        (("show", "h-unknown", "--store", url), 1, "No handoff record found with id 'h-unknown'."),
        (("list", "--store", "postgresql://ops:hunter2@127.0.0.1:1/test"), 1,
         "postgresql://ops@127.0.0.1:1/test?schema=handoff: cannot reach the database"),
        (("list", "--store", f"{url}_missing"), 1, "no handoff store in schema"),
        (("list", "--store", f"{url}&pool_size=0"), 2, "pool_size must be a number > 0"),
        (("import", bad_import, "--store", url), 1, "record #1 is invalid, nothing imported"),
    ]
    for args, code, message in cases:
        done = handoff(*args)
        assert done.returncode == code, (args, done.stderr)
        assert message in done.stderr
        assert "Traceback" not in done.stderr and "hunter2" not in done.stderr
    with closing(open_store(url)) as store:
        assert [r.record_id for r in store.query()] == ids  # the failed import added nothing


@pytest.mark.slow
def test_show_and_history_take_a_unique_prefix_and_refuse_an_ambiguous_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "records.db"
    manager = HandoffManager(store=SQLiteStore(path))
    ids = [manager.create_handoff(HandoffRequest(from_agent="a", to_agent="b",
                                                 task_description="t")).record_id
           for _ in range(2)]
    shown = handoff("show", ids[0][:8], "--store", path, "--format", "json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["record_id"] == ids[0]
    assert handoff("history", ids[1][:6], "--store", path).returncode == 0
    twins = [{**item, "record_id": f"abcd-{n}"} for n, item in enumerate(manager.export())]
    with SQLiteStore(path) as store:
        store.put_many(HandoffRecord.model_validate(item) for item in twins)
    ambiguous = handoff("show", "abcd", "--store", path)
    assert ambiguous.returncode == 2
    assert "record id prefix 'abcd' is ambiguous: it matches abcd-0, abcd-1" in ambiguous.stderr
    manager.store.close()
    unknown = handoff("show", "zzzzzzzz", "--store", path)
    assert unknown.returncode == 1
    assert "No handoff record found with id 'zzzzzzzz'" in unknown.stderr
