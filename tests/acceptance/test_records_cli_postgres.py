"""`handoff records --store postgresql://...` as an operator runs it (real processes), and
moving a whole audit trail between SQLite and PostgreSQL both ways without losing a byte."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.lifecycle import HandoffManager, HandoffRequest
from engine.stores import SQLiteStore, Store, open_store

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def handoff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "records", *map(str, args)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def fill(store: Store) -> list[str]:
    """Four records: completed, rejected, expired with a deadline, and pending with context."""
    now = [T0]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)
        return now[0]

    manager = HandoffManager(store=store, clock=clock, actor="ops", pending_timeout_s=3600)
    ids = []
    for n, to_agent in enumerate(("fraud", "billing", "claims", "fraud")):
        request = HandoffRequest(
            from_agent="triage", to_agent=to_agent, task_description=f"help from {to_agent} ✓",
            context={"n": n, "ratio": 1e20, "nested": {"tags": ["a", "b"]}}, priority=n + 1,
            deadline=T0 + timedelta(minutes=3) if to_agent == "claims" else None,
        )
        ids.append(manager.create_handoff(request, config_version="cfg-7").record_id)
    manager.accept(ids[0])
    manager.complete(ids[0], {"blocked": True, "amount": 12.5})
    manager.reject(ids[1], "wrong desk")
    manager.expire_overdue(now=T0 + timedelta(minutes=10))
    return ids


@pytest.fixture
def pg_records(postgres_url: str) -> tuple[str, list[str]]:
    with closing(open_store(postgres_url)) as store:
        ids = fill(store)
    return postgres_url, ids


@pytest.mark.slow
def test_list_show_and_history_on_postgres(pg_records: tuple[str, list[str]]) -> None:
    url, ids = pg_records
    listed = handoff("list", "--store", url)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ids
    assert lines[-1] == "4 of 4 record(s)"
    filtered = handoff("list", "--store", url, "--status", "failed", "--format", "json")
    document = json.loads(filtered.stdout)
    assert [r["record_id"] for r in document["records"]] == [ids[2]]
    assert document["records"][0]["failure"] == "deadline"
    shown = handoff("show", ids[0], "--store", url)
    assert "status:         completed" in shown.stdout
    assert "accept   pending -> accepted  by ops  Accepted by receiving agent." in shown.stdout
    history = json.loads(handoff("history", ids[1], "--store", url, "--format", "json").stdout)
    assert [(m["from"], m["to"], m["trigger"]) for m in history] == [
        (None, "pending", "create"), ("pending", "rejected", "reject"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_sqlite_to_postgres_and_back_is_lossless(
    postgres_url: str, tmp_path: Path, fmt: str
) -> None:
    source = tmp_path / "source.db"
    with SQLiteStore(source) as store:
        fill(store)
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


@pytest.mark.slow
def test_bad_input_on_postgres_gets_a_message_not_a_traceback(
    pg_records: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, ids = pg_records
    bad_import = tmp_path / "bad.json"
    with closing(open_store(url)) as store:
        good = [record.model_dump(mode="json") for record in store.query()]
    bad_import.write_text(json.dumps([good[0], {**good[1], "status": "lost"}]))
    base = url.partition("?")[0]
    cases = [
        (("show", "h-unknown", "--store", url), 1, "no handoff record with id 'h-unknown'"),
        (("list", "--store", "postgresql://ops:hunter2@127.0.0.1:1/test"), 1,
         "postgresql://ops@127.0.0.1:1/test?schema=handoff: cannot reach the database"),
        (("list", "--store", f"{base}?schema=nothing_here_{ids[0][:8]}"), 1,
         "no handoff store in schema"),
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
