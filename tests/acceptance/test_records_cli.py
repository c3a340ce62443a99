"""`handoff records` as an operator runs it: a real process over a real SQLite store."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.stores import SQLiteStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def handoff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "records", *map(str, args)],
        capture_output=True, text=True, timeout=60, check=False,
    )


@pytest.fixture
def store_file(tmp_path: Path) -> tuple[Path, list[str]]:
    """Three records: completed (triage -> fraud), rejected (triage -> billing), pending."""
    path = tmp_path / "records.db"
    now = [T0]

    def clock() -> datetime:
        now[0] += timedelta(minutes=1)
        return now[0]

    manager = HandoffManager(store=SQLiteStore(path), clock=clock, actor="ops",
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
    manager.store.close()
    return path, ids


@pytest.mark.slow
def test_list_show_and_history(store_file: tuple[Path, list[str]]) -> None:
    path, ids = store_file
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
