"""`handoff records` as an operator runs it: real processes over a real SQLite store and a
PostgreSQL store, and audit trails moved between the two both ways without losing a byte."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from contextlib import closing
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from engine.lifecycle import HandoffManager, HandoffRecord, HandoffRequest
from engine.stores import SQLiteStore, Store, open_store
from tests.patience import HANG_S

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def handoff(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "records", *map(str, args)],
        capture_output=True, text=True, timeout=HANG_S, check=False,
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
    assert imported.stdout.strip() == (
        f"imported 3, skipped 0 existing, replaced 0 record(s) into {copy}")
    with SQLiteStore(path) as original, SQLiteStore(copy) as restored:
        assert restored.query() == original.query()


@pytest.mark.slow
def test_import_reads_an_export_from_a_pipe_or_standard_input(
    store_file: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """A pipe can be read once; import reads its source twice (check, then write): it copies a
    pipe first, so `cat dump | handoff records import -` (or /dev/stdin) imports every record."""
    path, _ = store_file
    dump = handoff("export", "--store", path, "--format", "jsonl").stdout
    for n, source in enumerate(("-", "/dev/stdin")):
        copy = tmp_path / f"piped{n}.db"
        done = subprocess.run(
            [sys.executable, "-m", "engine", "records", "import", source, "--store", str(copy)],
            input=dump, capture_output=True, text=True, timeout=HANG_S, check=False)
        assert done.returncode == 0, (source, done.stderr)
        assert done.stdout.startswith("imported 3, skipped 0"), (source, done.stdout)
        with SQLiteStore(path) as original, SQLiteStore(copy) as restored:
            assert restored.query() == original.query()
    broken = subprocess.run(
        [sys.executable, "-m", "engine", "records", "import", "-", "--store",
         str(tmp_path / "never.db")],
        input=dump[: len(dump) // 2], capture_output=True, text=True, timeout=HANG_S, check=False)
    assert broken.returncode == 1 and "<stdin>" in broken.stderr, broken.stderr
    assert not (tmp_path / "never.db").exists()
    empty = subprocess.run(  # what a pipe holds when the command feeding it failed
        [sys.executable, "-m", "engine", "records", "import", "-", "--store",
         str(tmp_path / "never.db")],
        input="", capture_output=True, text=True, timeout=HANG_S, check=False)
    assert empty.returncode == 2 and "<stdin> held nothing to import" in empty.stderr
    assert not (tmp_path / "never.db").exists()
    (tmp_path / "-").write_text(dump, encoding="utf-8")  # a file named "-" is ./-
    named = subprocess.run(
        [sys.executable, "-m", "engine", "records", "import", "./-", "--store", "dash.db"],
        input="", capture_output=True, text=True, timeout=HANG_S, check=False, cwd=tmp_path)
    assert named.returncode == 0 and named.stdout.startswith("imported 3,"), named.stderr
    marked = tmp_path / "bom.jsonl"  # as Windows tools save UTF-8: a byte order mark first
    marked.write_text("\ufeff" + dump, encoding="utf-8")
    done = handoff("import", marked, "--store", tmp_path / "bom.db")
    assert done.returncode == 0 and done.stdout.startswith("imported 3,"), done.stderr


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
        (("list", "--store", path, "--since", "yesterday"), 2,
         "'yesterday': expected an ISO 8601 time"),
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


def forged_history(path: str | Path, record_id: str, tmp_path: Path) -> Path:
    """An export of the completed record `record_id` rewritten as a rejection nobody made."""
    with closing(open_store(path)) as store:
        item = store.get(record_id).model_dump(mode="json")
    item["history"] = [*item["history"][:1], {**item["history"][1], "to": "rejected",
                                              "trigger": "reject", "reason": "forged"}]
    item.update(status="rejected", version=2, result={},
                response={"accepted": False, "reason": "forged"})
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps(item) + "\n", encoding="utf-8")
    return forged


@pytest.mark.slow
def test_import_keeps_stored_records_unless_told_to_replace_them(
    filled: tuple[str | Path, list[str]], tmp_path: Path
) -> None:
    path, ids = filled
    with closing(open_store(path)) as store:
        genuine = store.get(ids[0])
    forged = forged_history(path, ids[0], tmp_path)
    kept = handoff("import", forged, "--store", path)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout.startswith("imported 0, skipped 1 existing, replaced 0 record(s) into ")
    assert "1 record(s) already stored were kept as they are; --replace overwrites them" in (
        kept.stderr)
    with closing(open_store(path)) as store:
        assert store.get(ids[0]) == genuine
    replaced = handoff("import", forged, "--store", path, "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert replaced.stdout.startswith("imported 0, skipped 0 existing, replaced 1 record(s)")
    with closing(open_store(path)) as store:
        assert store.get(ids[0]).status.value == "rejected"


def hostile_items(good: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """What an attacker puts in an import: the item's JSON, and what the error must say."""
    deep = '{"a": ' * 100_000 + "{}" + "}" * 100_000
    request = good["request"]
    return {
        "version 2**63": (json.dumps({**good, "version": 2**63}),
                          "version: integer outside 64 bits"),
        "version 2**31": (json.dumps({**good, "version": 2**31}),
                          "version: 2147483648 is outside 1 to 2147483644"),
        "deadline": (json.dumps({**good, "request": {
            **request, "deadline": "0001-01-01T00:00:00+14:00"}}),
            "request.deadline: Value error, outside the range of UTC times (years 1 to 9999)"),
        "5,000 digits": (json.dumps({**good, "result": {"n": "N"}}).replace('"N"', "7" * 5000),
                         "result.n: integer of 5000 digits, outside 64 bits"),
        "100,000 deep": (json.dumps({**good, "result": "D"}).replace('"D"', deep),
                         "result.a.a.a.a.a.a.a... (200 levels): nested deeper than 200 levels"),
        "3 KB id": (json.dumps({**good, "record_id": "r" * 3000}),
                    "record_id: longer than 512 characters"),
    }


@pytest.mark.slow
def test_hostile_imports_get_located_errors_and_store_nothing(
    filled: tuple[str | Path, list[str]], tmp_path: Path
) -> None:
    path, _ = filled
    with closing(open_store(path)) as store:
        before = store.query()
    good = {**before[0].model_dump(mode="json"), "record_id": "new-1"}
    second = {**good, "record_id": "new-2"}
    for what, (item, words) in hostile_items(second).items():
        dump = tmp_path / "hostile.jsonl"
        dump.write_text(json.dumps(good) + "\n" + item + "\n", encoding="utf-8")
        done = handoff("import", dump, "--store", path)
        assert done.returncode == 1, (what, done.stderr)
        assert "Traceback" not in done.stderr, what
        assert f"{dump}:2: record #1 is invalid, nothing imported: {words}" in done.stderr, (
            what, done.stderr[:500])
    with closing(open_store(path)) as store:
        assert store.query() == before


@pytest.mark.slow
def test_a_failed_import_creates_no_store(store_file: tuple[Path, list[str]], tmp_path: Path
                                          ) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record_id": "x"}\n', encoding="utf-8")
    done = handoff("import", bad, "--store", tmp_path / "new.db")
    assert done.returncode == 1 and "record #0 is invalid" in done.stderr
    assert not (tmp_path / "new.db").exists()


@pytest.mark.slow
def test_a_time_outside_the_utc_range_is_a_usage_error(store_file: tuple[Path, list[str]]
                                                        ) -> None:
    path, _ = store_file
    done = handoff("list", "--store", path, "--since", "0001-01-01T00:00:00+14:00")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "outside the range of UTC times (years 1 to 9999)" in done.stderr


PEAK = """
import sys
from engine.cli.main import main
code = main(sys.argv[1:])
with open("/proc/self/status", encoding="ascii") as status:  # this process's own peak
    peak = next(line for line in status if line.startswith("VmHWM:"))
print(int(peak.split()[1]) * 1024, file=sys.stderr)
sys.exit(code)
"""


def peak_rss(*args: str | Path) -> int:
    """The peak resident memory, in bytes, of a `handoff` process running `args` (Linux:
    `ru_maxrss` would count the memory of the test process it was forked from)."""
    done = subprocess.run([sys.executable, "-c", PEAK, *map(str, args)], capture_output=True,
                          text=True, timeout=HANG_S, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stderr.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_a_large_import_is_streamed_not_loaded_whole(tmp_path: Path) -> None:
    """JSON Lines here; tests/unit/stores reads both formats under tracemalloc."""
    fmt = "jsonl"
    path = tmp_path / "big.db"
    fill(SQLiteStore(path))
    with SQLiteStore(path) as store:
        template = store.query()[0].model_dump(mode="json")
    template["request"]["context"] = {"note": "x" * 1200, "tags": list(range(20))}
    one, big = tmp_path / f"one.{fmt}", tmp_path / f"big.{fmt}"
    for target, count in ((one, 1), (big, 12_000)):
        items = (json.dumps({**template, "record_id": f"r-{n}"}) for n in range(count))
        text = "\n".join(items) if fmt == "jsonl" else "[\n" + ",\n".join(items) + "\n]"
        target.write_text(text + "\n", encoding="utf-8")
    size = big.stat().st_size
    baseline = peak_rss("records", "import", one, "--store", tmp_path / "one.db")
    peak = peak_rss("records", "import", big, "--store", tmp_path / "big.db")
    assert size > 16_000_000
    assert peak - baseline < 3 * size  # reading it whole took about 10 times its size


HOSTILE_TEXT = "\x1b]0;owned\x07done\n\x1b[1A\x1b[2Kstatus: completed \x9b31m\u202eevil\x7f"
CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")  # every control character but a newline


@pytest.fixture
def hostile_store(tmp_path: Path) -> tuple[Path, str]:
    """A store holding a record whose caller text tries to drive the operator's terminal."""
    path = tmp_path / "hostile.db"
    manager = HandoffManager(store=SQLiteStore(path), clock=lambda: T0, pending_timeout_s=3600)
    request = HandoffRequest(from_agent="tri\x1b[8mage", to_agent="fraud",
                             task_description=HOSTILE_TEXT, context={"note": HOSTILE_TEXT})
    record_id = manager.create_handoff(request, config_version="v\x1b[5m").record_id
    manager.accept(record_id, actor="ops\u202e")
    manager.fail(record_id, HOSTILE_TEXT, actor="\x9b2J")
    manager.store.close()
    return path, record_id


@pytest.mark.slow
def test_text_output_shows_control_characters_as_escapes(hostile_store: tuple[Path, str]) -> None:
    path, record_id = hostile_store
    runs = {action: handoff(action, *([record_id] if action != "list" else []), "--store", path)
            for action in ("list", "show", "history")}
    for action, done in runs.items():
        assert done.returncode == 0, done.stderr
        assert CONTROLS.search(done.stdout) is None, (action, done.stdout)
    shown = runs["show"].stdout
    assert "\\x1b]0;owned\\x07done\\x0a\\x1b[1A\\x1b[2Kstatus: completed" in shown
    assert "from -> to:     tri\\x1b[8mage -> fraud" in shown
    assert "by ops\\u202e" in shown and "\\x9b31m\\u202eevil\\x7f" in shown
    assert len(shown.splitlines()) == 13 + 1 + 3  # fields, "history:", three moves
    assert len(runs["history"].stdout.splitlines()) == 3
    assert len(runs["list"].stdout.splitlines()) == 2


@pytest.mark.slow
def test_json_output_and_exports_escape_them_and_keep_the_text(
    hostile_store: tuple[Path, str], tmp_path: Path
) -> None:
    path, record_id = hostile_store
    readers = {  # where each output holds the task text
        ("show", record_id, "--format", "json"): lambda out: json.loads(out)["request"],
        ("list", "--format", "json"): lambda out: json.loads(out)["records"][0]["request"],
        ("export",): lambda out: json.loads(out)[0]["request"],
        ("export", "--format", "jsonl"): lambda out: json.loads(out)["request"],
        ("history", record_id, "--format", "json"): lambda out: {
            "task_description": json.loads(out)[-1]["reason"]},
    }
    for args, read in readers.items():
        done = handoff(*args, "--store", path)
        assert done.returncode == 0, done.stderr
        assert CONTROLS.search(done.stdout) is None, (args, done.stdout)
        assert read(done.stdout)["task_description"] == HOSTILE_TEXT, args
    dump = tmp_path / "dump.jsonl"
    dump.write_text(handoff("export", "--format", "jsonl", "--store", path).stdout, "utf-8")
    assert handoff("import", dump, "--store", tmp_path / "copy.db").returncode == 0
    with SQLiteStore(path) as original, SQLiteStore(tmp_path / "copy.db") as copy:
        assert copy.query() == original.query()
        assert copy.get(record_id).request.task_description == HOSTILE_TEXT
