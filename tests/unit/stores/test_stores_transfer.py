"""Export and import as JSON and JSON Lines: round trips and all-or-nothing errors."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest

from engine.errors import RecordImportError
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
    with pytest.raises(RecordImportError, match="not valid JSON"):
        load("[{]")
    with pytest.raises(RecordImportError, match="line 2 is not valid JSON") as caught:
        load('{"a": 1}\n{oops\n', fmt="jsonl")
    assert caught.value.index == 1
    with pytest.raises(RecordImportError, match="expected a list"):
        parse_records({"record_id": "x"})  # type: ignore[arg-type]
