"""Export and import as JSON and JSON Lines: round trips and all-or-nothing errors."""

from __future__ import annotations

import io
import json
import re
import tracemalloc
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.errors import RecordImportError, UsageError
from engine.lifecycle import HandoffRecord
from engine.lifecycle.transfer import dump, load, parse_records, read_records
from tests.unit.stores.conftest import make_record

MakeRecord = Callable[..., HandoffRecord]


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_round_trip(fmt: str, record: MakeRecord) -> None:
    records = [record(n, context={"n": n}) for n in range(3)]
    out = io.StringIO()
    assert dump(records, out, fmt=fmt) == 3  # type: ignore[arg-type]
    text = out.getvalue()
    assert load(text) == records  # format guessed
    assert load(text, fmt=fmt) == records  # type: ignore[arg-type]
    if fmt == "jsonl":
        assert len(text.splitlines()) == 3
    else:
        assert len(json.loads(text)) == 3


def test_empty_exports() -> None:
    for fmt in ("json", "jsonl"):
        out = io.StringIO()
        dump([], out, fmt=fmt)  # type: ignore[arg-type]
        assert load(out.getvalue()) == []


def test_bad_item_is_named_by_index(record: MakeRecord) -> None:
    good = record(1).model_dump(mode="json")
    cases = [
        ([good, {**good, "record_id": "h-2", "status": "lost"}], 1, "status"),
        ([good, good], 1, "repeats #0"),
        ([good, "text"], 1, "expected an object"),
        ([{**good, "version": 0}], 0, "version"),
        ([{**good, "history": [{"to": "pending"}]}], 0, "history.0"),
    ]
    for data, index, words in cases:
        with pytest.raises(RecordImportError, match=words) as caught:
            parse_records(data)
        assert caught.value.index == index
        assert f"record #{index} is invalid, nothing imported" in str(caught.value)


def test_malformed_documents() -> None:
    with pytest.raises(RecordImportError, match=r"^line 1: record #0 is invalid, nothing imported:"
                       r" not valid JSON at line 1: Expecting property name"):
        load("[{]")
    with pytest.raises(UsageError, match=r"line 1: the list ends without '\]'"):
        load("[")
    with pytest.raises(UsageError, match="line 2: text after the end of the list"):
        load("[]\n[]")
    with pytest.raises(UsageError, match=r"expected '\[' \(a JSON export is a list of records\),"
                                         " found '{'"):
        load('{"a": 1}', fmt="json")
    good = json.dumps(make_record(1).model_dump(mode="json"))
    with pytest.raises(RecordImportError, match=r"^line 2: record #1 is invalid, nothing imported:"
                       r" not valid JSON: Expecting property name .* \(column 2\)") as caught:
        load(f"{good}\n{{oops\n", fmt="jsonl")
    assert (caught.value.index, caught.value.line) == (1, 2)
    with pytest.raises(UsageError, match="needs a list of records, got dict"):
        parse_records({"record_id": "x"})  # type: ignore[arg-type]


def test_history_must_be_a_legal_path(record: MakeRecord) -> None:
    good = record(1).model_dump(mode="json")
    at = good["history"][0]["at"]
    jump = {"from": "pending", "to": "completed", "trigger": "complete", "at": at}
    cases = [
        ({**good, "history": [*good["history"], jump], "status": "completed"},
         "history[1]: complete from 'pending' to 'completed' is illegal"),
        ({**good, "status": "accepted"}, "history ends in 'pending' but status is 'accepted'"),
        ({**good, "history": [{**good["history"][0], "trigger": "accept"}]},
         "history must start with 'create'"),
    ]
    for item, words in cases:
        with pytest.raises(RecordImportError, match=re.escape(words)):
            parse_records([item])


def test_seed_000_exports_without_our_fields_import() -> None:
    seed_item = {
        "record_id": "0b6f3c9e-1111-4c6e-9a59-2f1f0c0d8e11",
        "request": {"from_agent": "coordinator", "to_agent": "analyst",
                    "task_description": "Analyze Q3 churn", "priority": 9,
                    "deadline": "2026-03-31T23:59:00"},
        "response": {"accepted": True, "reason": "Accepted by receiving agent."},
        "status": "accepted",
        "created_at": "2026-03-01T10:00:00+00:00",
        "updated_at": "2026-03-01T10:01:00+00:00",
    }
    (record,) = parse_records([seed_item])
    assert (record.version, record.history, record.config_version) == (1, (), None)
    assert record.request.deadline is not None
    assert record.request.deadline.utcoffset() == timedelta(0)  # naive read as UTC


def test_a_time_outside_the_utc_range_is_a_located_import_error(record: MakeRecord) -> None:
    good = record(1).model_dump(mode="json")
    early = {**good, "request": {**good["request"], "deadline": "0001-01-01T00:00:00+14:00"}}
    with pytest.raises(RecordImportError) as caught:
        parse_records([good | {"record_id": "h-0"}, early])
    assert caught.value.index == 1
    assert "request.deadline: Value error, outside the range of UTC times (years 1 to 9999)" in (
        str(caught.value))


def _lines(*items: object) -> str:
    return "".join(json.dumps(item) + "\n" for item in items)


def _import_error(text: str, **options: Any) -> RecordImportError:
    with pytest.raises(RecordImportError) as caught:
        list(read_records(io.StringIO(text), name="dump.jsonl", **options))
    assert "Traceback" not in str(caught.value)
    return caught.value


def _hostile(good: dict[str, Any]) -> list[tuple[str, object, str]]:
    """(what, the bad second item or its JSON text, the message it must get)."""
    request = good["request"]
    deep = "{" + '"a": {' * 100_000 + "}" * 100_001
    return [
        ("version 2**63", {**good, "version": 2**63}, "version: integer outside 64 bits"),
        ("version 2**31", {**good, "version": 2**31},
         "version: 2147483648 is outside 1 to 2147483644"),
        ("a 5,000-digit version", '{"record_id": "h-2", "version": ' + "9" * 5000 + "}",
         "version: integer of 5000 digits, outside 64 bits"),
        ("a 5,000-digit context value", json.dumps({**good, "request": {**request, "context": {
            "n": [1, 2, "N"]}}}).replace('"N"', "-" + "9" * 5000),
         "request.context.n[2]: integer of 5000 digits, outside 64 bits"),
        ("an integer outside 64 bits", {**good, "result": {"n": 2**64}},
         "result.n: integer outside 64 bits"),
        ("a deadline before year 1 in UTC", {**good, "request": {
            **request, "deadline": "0001-01-01T00:00:00+14:00"}},
         "request.deadline: Value error, outside the range of UTC times (years 1 to 9999)"),
        ("created after year 9999", {**good, "created_at": "9999-12-31T23:00:00-14:00"},
         "created_at: Value error, outside the range of UTC times"),
        ("100,000-deep nesting", json.dumps(good)[:-1] + ', "result": ' + deep + "}",
         "result.a.a.a.a.a.a.a... (200 levels): nested deeper than 200 levels"),
        ("300-deep nesting", {**good, "request": {**request, "context": nested(300)}},
         "request.context.a.a.a.a.a.a... (200 levels): nested deeper than 200 levels"),
        ("NaN", '{"record_id": "h-2", "result": {"x": NaN}}', "result.x: nan is not a finite"),
        ("an escape sequence in a key", json.dumps({**good, "result": {"\x1b[2J": 1e999}}),
         "result.'\\x1b[2J': inf is not a finite number"),
        ("a lone surrogate", json.dumps({**good, "request": {
            **request, "task_description": "a\ud800b"}}),
         "request.task_description: holds a lone surrogate"),
        ("a 3 KB record id", {**good, "record_id": "x" * 3000},
         "record_id: longer than 512 characters"),
        ("an escape sequence in the id", {**good, "record_id": "h\x1b]0;owned\x07"},
         "record_id: holds a control character (U+001B)"),
    ]


def _with_context(record: HandoffRecord, context: dict[str, Any]) -> HandoffRecord:
    return record.model_copy(update={"request": record.request.model_copy(
        update={"context": context})})


def nested(depth: int) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for _ in range(depth):
        data = {"a": data}
    return data


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_hostile_values_get_located_errors_not_tracebacks(fmt: str, record: MakeRecord) -> None:
    first = record(1).model_dump(mode="json")
    good = record(2).model_dump(mode="json")
    for what, bad, words in _hostile(good):
        item = bad if isinstance(bad, str) else json.dumps(bad)
        text = (json.dumps(first) + "\n\n" + item + "\n" if fmt == "jsonl"
                else "[" + json.dumps(first) + ",\n\n" + item + "\n]\n")
        error = _import_error(text)
        assert (error.index, error.line) == (1, 3), what
        assert str(error).startswith("dump.jsonl:3: record #1 is invalid, nothing imported: "), what
        assert words in str(error), (what, str(error))


def test_a_json_list_streams_across_reads_with_the_line_of_each_item(
    record: MakeRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.stores import export_items

    monkeypatch.setattr(export_items, "_CHUNK", 7)  # items cut across many reads
    records = [_with_context(record(n), {"text": "x" * (n * 37), "n": 10**18 + n})
               for n in range(40)]
    pretty = json.dumps([r.model_dump(mode="json") for r in records], indent=2)
    assert list(read_records(io.StringIO(pretty))) == records
    bad = pretty.replace('"h-31"', '"h-30"')
    error = _import_error(bad)
    assert error.index == 31 and "record_id 'h-30' repeats #30" in str(error)
    assert pretty.splitlines()[error.line - 1] == "  {"
    assert pretty.splitlines()[error.line].strip() == f'"record_id": "{records[31].record_id}",'


def test_an_item_over_the_size_cap_is_refused_before_it_is_read_whole(
    record: MakeRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.stores import export_items

    monkeypatch.setattr(export_items, "ITEM_MAX_CHARS", 1000)
    big = _with_context(record(2), {"note": "x" * 5000}).model_dump(mode="json")
    small = record(1).model_dump(mode="json")
    for text in (_lines(small, big), json.dumps([small, big])):
        error = _import_error(text)
        assert error.index == 1 and "larger than 1000 characters" in str(error)


def test_an_import_stream_is_read_lazily(record: MakeRecord) -> None:
    text = _lines(*(record(n).model_dump(mode="json") for n in range(3))) + "{oops\n"
    records = read_records(io.StringIO(text))
    assert next(records) == record(0)  # the bad line is not read yet
    with pytest.raises(RecordImportError, match="line 4: record #3 is invalid"):
        list(records)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_reading_an_export_holds_one_item_not_the_file(
    fmt: str, record: MakeRecord, tmp_path: Path
) -> None:
    template = _with_context(record(1), {"note": "x" * 1000}).model_dump(mode="json")
    path = tmp_path / f"dump.{fmt}"
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n" if fmt == "json" else "")
        for n in range(5000):
            separator = ",\n" if fmt == "json" and n else ""
            out.write(separator + json.dumps({**template, "record_id": f"r-{n}"}))
            out.write("" if fmt == "json" else "\n")
        out.write("\n]\n" if fmt == "json" else "")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with path.open(encoding="utf-8") as source:
            count = sum(1 for _ in read_records(source))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 5000 and size > 6_000_000
    assert peak < size / 4  # one item, a read chunk and the ids seen; never the whole file


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_a_file_that_is_not_utf8_is_a_usage_error(fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "dump"
    good = json.dumps(make_record(1).model_dump(mode="json")).encode()
    body = good + b"\n" + b" " * 70_000 + b"\n\xff\xfe\n"  # past the first read
    path.write_bytes(b"[" + body + b"]" if fmt == "json" else body)
    with path.open(encoding="utf-8") as source, pytest.raises(
        UsageError, match=r"^dump:\d+: not UTF-8 text from here on \(invalid start byte\)$"
    ):
        list(read_records(source, fmt=fmt, name="dump"))  # type: ignore[arg-type]
