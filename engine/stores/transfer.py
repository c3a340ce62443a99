"""Export and import of records as JSON (one list) or JSON Lines (one record per line).

Import is validated in full (shape, and a history that is a legal path through the table)
before anything is stored: one bad item raises `RecordImportError` naming its index. This
module never talks to a store itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import IO, Any, Literal

from pydantic import ValidationError

from engine.errors import RecordImportError, UsageError
from engine.lifecycle.models import HandoffRecord
from engine.lifecycle.moves import history_problem
from engine.stores.base import ALL, RecordQuery, Store

Format = Literal["json", "jsonl"]
FORMATS: tuple[Format, ...] = ("json", "jsonl")


def parse_records(data: Sequence[Any]) -> list[HandoffRecord]:
    """Validate every item of `data` (dicts as `export()` writes them); all or nothing."""
    if isinstance(data, (str, bytes, dict)) or not isinstance(data, Sequence):
        raise UsageError(f"import needs a list of records, got {type(data).__name__}")
    records = []
    seen: dict[str, int] = {}
    for index, item in enumerate(data):
        records.append(_parse_one(index, item))
        first = seen.setdefault(records[-1].record_id, index)
        if first != index:
            raise RecordImportError(index, f"record_id {records[-1].record_id!r} repeats #{first}")
    return records


def _parse_one(index: int, item: Any) -> HandoffRecord:
    if not isinstance(item, dict):
        raise RecordImportError(index, f"expected an object, got {type(item).__name__}")
    try:
        record = HandoffRecord.model_validate(item)
    except ValidationError as error:
        found = [(tuple(e["loc"]), str(e["msg"])) for e in error.errors()]
        detail = "; ".join(
            f"{'.'.join(str(part) for part in loc) or '<record>'}: {message}"
            for loc, message in found[:5]
        )
        raise RecordImportError(index, detail, problems=found) from error
    problem = history_problem(record)
    if problem is not None:
        raise RecordImportError(index, problem)
    return record


def iter_records(store: Store, query: RecordQuery = ALL, *, page: int = 1000) -> Iterator[
    HandoffRecord
]:
    """Every record matching `query`, oldest first, read `page` records at a time, so an
    export of a large store never holds it all in memory."""
    offset = query.offset
    remaining = query.limit
    while remaining is None or remaining > 0:
        size = page if remaining is None else min(page, remaining)
        batch = store.query(replace(query, limit=size, offset=offset))
        yield from batch
        if len(batch) < size:
            return
        offset += size
        remaining = None if remaining is None else remaining - size


def dump(records: Iterable[HandoffRecord], out: IO[str], *, fmt: Format = "json") -> int:
    """Write `records` to `out` in `fmt`; returns how many were written."""
    count = 0
    if fmt == "jsonl":
        for record in records:
            out.write(record.model_dump_json() + "\n")
            count += 1
        return count
    out.write("[")
    for record in records:
        out.write(",\n" if count else "\n")
        out.write(record.model_dump_json())
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def load(text: str, *, fmt: Format | None = None) -> list[HandoffRecord]:
    """Parse an export (`fmt` guessed from the first character if None); all or nothing."""
    stripped = text.lstrip()
    if fmt is None:
        fmt = "json" if stripped.startswith("[") or not stripped else "jsonl"
    if fmt == "json":
        try:
            data = json.loads(text) if stripped else []
        except json.JSONDecodeError as error:
            raise UsageError(f"import: the document is not valid JSON: {error}") from error
        return parse_records(data)
    return parse_records(list(_json_lines(text)))


def _json_lines(text: str) -> Iterator[Any]:
    index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordImportError(index, f"line {number} is not valid JSON: {error}") from error
        index += 1
