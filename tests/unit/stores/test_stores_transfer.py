"""Export and import as JSON and JSON Lines: round trips and all-or-nothing errors."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from datetime import timedelta

import pytest

from engine.errors import RecordImportError, UsageError
from engine.lifecycle import HandoffRecord
from engine.stores.transfer import dump, load, parse_records

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
    with pytest.raises(UsageError, match="the document is not valid JSON"):
        load("[{]")
    with pytest.raises(RecordImportError, match="line 2 is not valid JSON") as caught:
        load('{"a": 1}\n{oops\n', fmt="jsonl")
    assert caught.value.index == 1
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
