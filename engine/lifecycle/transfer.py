"""Export and import of records as JSON (one list) or JSON Lines (one record per line).

Import validates each item in full (JSON data a store keeps, shape, the range every store
keeps, and a history that is a legal path through the table): a bad item raises
`RecordImportError` naming its index, its line and the field. `read_records` streams a file
one record at a time. This module never talks to a store itself.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import IO, Any

from pydantic import ValidationError

from engine.errors import Problem, RecordImportError, UsageError
from engine.lifecycle.moves import history_problem
from engine.records.limits import storable_problem
from engine.records.models import HandoffRecord
from engine.records.store import ALL, RecordQuery, Store
from engine.stores.export_data import data_problem, where
from engine.stores.export_items import Format, read_items

FORMATS: tuple[Format, ...] = ("json", "jsonl")


def parse_records(data: Sequence[Any]) -> list[HandoffRecord]:
    """Validate every item of `data` (dicts as `export()` writes them); all or nothing."""
    if isinstance(data, (str, bytes, dict)) or not isinstance(data, Sequence):
        raise UsageError(f"import needs a list of records, got {type(data).__name__}")
    return list(_unique(
        (index, 0, _parse_one(index, _json_data(index, item))) for index, item in enumerate(data)
    ))


def read_records(
    source: IO[str], *, fmt: Format | None = None, name: str = ""
) -> Iterator[HandoffRecord]:
    """Each record of the export in `source`, validated, read as it is needed (memory holds
    one item at a time); `name` (the file) goes into error messages."""
    items = enumerate(read_items(source, fmt=fmt, name=name))  # checked as JSON data there
    return _unique(
        ((index, line, _parse_one(index, item, line=line, source=name))
         for index, (line, item) in items),
        source=name,
    )


def load(text: str, *, fmt: Format | None = None) -> list[HandoffRecord]:
    """Parse an export (`fmt` guessed from the first character if None); all or nothing."""
    return list(read_records(io.StringIO(text), fmt=fmt))


def _unique(
    parsed: Iterable[tuple[int, int, HandoffRecord]], *, source: str = ""
) -> Iterator[HandoffRecord]:
    """The records of (index, line, record), refusing a record id seen before."""
    seen: dict[str, int] = {}
    for index, line, record in parsed:
        first = seen.setdefault(record.record_id, index)
        if first != index:
            detail = f"record_id {record.record_id!r} repeats #{first}"
            raise RecordImportError(index, detail, line=line, source=source)
        yield record


def _json_data(index: int, item: Any) -> Any:
    """`item` if it is JSON data a store keeps (see `data_problem`)."""
    problem = data_problem(item) if isinstance(item, (dict, list)) else None
    if problem is not None:
        raise RecordImportError(index, f"{where(problem[0])}: {problem[1]}", problems=[problem])
    return item


def _parse_one(index: int, item: Any, *, line: int = 0, source: str = "") -> HandoffRecord:
    def refuse(detail: str, problems: Sequence[Problem] = ()) -> RecordImportError:
        return RecordImportError(index, detail, problems=problems, line=line, source=source)

    if not isinstance(item, dict):
        raise refuse(f"expected an object, got {type(item).__name__}")
    try:
        record = HandoffRecord.model_validate(item)
    except ValidationError as error:
        found = [(tuple(e["loc"]), str(e["msg"])) for e in error.errors()]
        detail = "; ".join(
            f"{'.'.join(str(part) for part in loc) or '<record>'}: {message}"
            for loc, message in found[:5]
        )
        raise refuse(detail, found) from error
    limit = storable_problem(record)
    if limit is not None:
        raise refuse(f"{limit[0]}: {limit[1]}", [(tuple(limit[0].split(".")), limit[1])])
    illegal = history_problem(record)
    if illegal is not None:
        raise refuse(illegal)
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


def dump(
    records: Iterable[HandoffRecord], out: IO[str], *, fmt: Format = "json",
    escape: Callable[[str], str] | None = None,
) -> int:
    """Write `records` to `out` in `fmt`, one record a line; returns how many were written.
    `escape` rewrites each record's JSON (e.g. escaping more characters, same value)."""
    count = 0
    if fmt == "jsonl":
        for record in records:
            text = record.model_dump_json()
            out.write((text if escape is None else escape(text)) + "\n")
            count += 1
        return count
    out.write("[")
    for record in records:
        out.write(",\n" if count else "\n")
        text = record.model_dump_json()
        out.write(text if escape is None else escape(text))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count
