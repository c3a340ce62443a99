"""`handoff records list|show|history|export|import --store FILE|URL`: the audit trail for
operators, in a SQLite file or a PostgreSQL database (`open_store` picks the store).

It never moves records through the lifecycle. Results go to stdout as text or JSON. Every record
shown, exported or imported passes the default redaction policy first (a store written without
one never leaks here), and text from records is printed with its control characters escaped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from engine.cli.terminal import json_safe, printable
from engine.config.document import STDIN
from engine.errors import UsageError
from engine.lifecycle.transfer import FORMATS, dump, iter_records, read_records
from engine.records.models import HandoffRecord, HandoffStatus, parse_utc
from engine.records.store import MAX_ROWS, RecordQuery, Store, resolve_record_id
from engine.redaction import DEFAULT_REDACTOR
from engine.stores.locations import open_store

NAME = "records"
HELP = "Read, export and import the handoff audit trail of a SQLite or PostgreSQL store."
EXIT_OK = 0
VIEW_FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--store", required=True, help="a SQLite store file or a postgresql:// URL"
    )
    shown = argparse.ArgumentParser(add_help=False)
    shown.add_argument("--format", choices=VIEW_FORMATS, default="text", help="output format")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", parents=[common, shown], help="records, oldest first")
    listing.add_argument("--status", choices=[s.value for s in HandoffStatus])
    listing.add_argument("--agent", help="records sent by or to this agent")
    listing.add_argument("--since", type=_moment, help="created at or after (ISO 8601)")
    listing.add_argument("--until", type=_moment, help="created before (ISO 8601)")
    listing.add_argument("--limit", type=_count, help="at most this many records")
    listing.add_argument("--offset", type=_count, default=0, help="skip this many first")

    for action, text in (("show", "one record"), ("history", "the moves of one record")):
        one = actions.add_parser(action, parents=[common, shown], help=text)
        one.add_argument("record_id", help="the record id, or a unique prefix of it (4+ chars)")

    export = actions.add_parser("export", parents=[common], help="every record as JSON")
    export.add_argument("--format", choices=FORMATS, default="json", help="json or jsonl")
    export.add_argument("--output", "-o", type=Path, help="write here instead of stdout")

    load_ = actions.add_parser("import", parents=[common], help="add records from an export")
    load_.add_argument("source", help="a JSON or JSON Lines export, or - for standard input "
                                       "(./- for a file of that name)")
    load_.add_argument("--format", choices=FORMATS, help="default: guessed from the content")
    load_.add_argument("--replace", action="store_true",
                       help="overwrite records the store already holds (default: keep them)")


def execute(args: argparse.Namespace) -> int:
    if args.action == "import":
        return _import(args)
    with closing(open_store(args.store, readonly=True)) as store:
        if args.action == "list":
            query = RecordQuery(
                status=None if args.status is None else HandoffStatus(args.status),
                agent=args.agent,
                since=args.since,
                until=args.until,
                limit=args.limit,
                offset=args.offset,
            )
            records = [_redact(record) for record in store.query(query)]
            print(_render_list(records, store.count(query), args.format))
        elif args.action == "show":
            record = store.get(resolve_record_id(store, args.record_id))
            print(_render_record(_redact(record), args.format))
        elif args.action == "history":
            record = store.get(resolve_record_id(store, args.record_id))
            print(_render_history(_redact(record), args.format))
        else:
            return _export(store, args)
    return EXIT_OK


def _export(store: Store, args: argparse.Namespace) -> int:
    records = map(_redact, iter_records(store))
    if args.output is None:
        dump(records, sys.stdout, fmt=args.format, escape=json_safe)
        return EXIT_OK
    try:
        with args.output.open("w", encoding="utf-8") as out:
            count = dump(records, out, fmt=args.format, escape=json_safe)
    except OSError as error:
        raise UsageError(f"cannot write {args.output}: {error.strerror or error}") from error
    print(f"exported {count} record(s) to {args.output}", file=sys.stderr)
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    """Read the export twice, one record at a time: once to check all of it before the store
    is opened, then to write it in one commit (checked again: the file may have changed). A
    pipe or standard input can be read only once: it is copied to a temporary file first."""
    with _rereadable(args.source) as path:
        for _ in _read(path, args):
            pass
        with closing(open_store(args.store)) as store:
            counts = store.restore(map(_redact, _read(path, args)), replace=args.replace)
            print(f"imported {counts.added}, skipped {counts.skipped} existing, replaced"
                  f" {counts.replaced} record(s) into {store.location}")
    if counts.skipped:
        print(f"{counts.skipped} record(s) already stored were kept as they are; --replace"
              " overwrites them", file=sys.stderr)
    return EXIT_OK


@contextmanager
def _rereadable(source: str) -> Iterator[Path]:
    """The export `source` names (the argument as given: `-` is standard input, `./-` a file)
    as a file to read twice: itself when it is a regular file, else (standard input, a pipe,
    a device) a temporary copy of what it holds, removed afterwards. A pipe that held nothing
    is a UsageError: the command feeding it most likely failed."""
    if source != STDIN and _regular(Path(source)):
        yield Path(source)
        return
    with tempfile.TemporaryDirectory(prefix="handoff-import-") as folder:
        copy = Path(folder) / "export"
        try:
            with _opened_binary(source) as stream, copy.open("wb") as out:
                shutil.copyfileobj(stream, out)
        except OSError as error:
            raise UsageError(f"cannot read {_shown(source)}: {error.strerror or error}"
                             ) from error
        if copy.stat().st_size == 0:
            raise UsageError(f"{_shown(source)} held nothing to import (did the command "
                             "feeding it fail?)")
        yield copy


def _regular(path: Path) -> bool:
    """Whether `path` is a regular file (True also when it cannot be looked at: opening it
    then says why)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return True


@contextmanager
def _opened_binary(source: str) -> Iterator[BinaryIO]:
    """Standard input for `-` (left open), else the file `source` opened for reading."""
    if source == STDIN:
        if sys.stdin is None:  # started with its standard input closed
            raise UsageError("- names the standard input, and it is closed")
        yield sys.stdin.buffer
        return
    with open(source, "rb") as stream:
        yield stream


def _shown(source: str) -> str:
    return "<stdin>" if source == STDIN else source


def _read(path: Path, args: argparse.Namespace) -> Iterator[HandoffRecord]:
    """The records of the export at `path`; errors name `args.source`, as the user gave it."""
    name = _shown(args.source)
    try:
        source = path.open(encoding="utf-8-sig")  # a byte order mark (Windows tools) is read past
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror or error}") from error
    with source:
        yield from read_records(source, fmt=args.format, name=name)


_redact = DEFAULT_REDACTOR.record


def _moment(text: str) -> datetime:
    try:
        return parse_utc(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{text!r}: {error}") from None


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_ROWS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 0 to {MAX_ROWS}")
    return value


def _render_list(records: Sequence[HandoffRecord], total: int, fmt: str) -> str:
    if fmt == "json":
        items = [record.model_dump(mode="json") for record in records]
        return json.dumps({"total": total, "records": items}, indent=2)
    lines = [
        printable(f"{r.record_id}  {r.status.value:<11}  {r.request.from_agent} ->"
                  f" {r.request.to_agent}  {_when(r.created_at)}  v{r.version}  ")
        + _short(printable(r.request.task_description))
        for r in records
    ]
    lines.append(f"{len(records)} of {total} record(s)")
    return "\n".join(lines)


def _render_record(record: HandoffRecord, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(record.model_dump(mode="json"), indent=2)
    request = record.request
    fields = {
        "record": record.record_id,
        "status": record.status.value,
        "failure": record.failure.value if record.failure else "-",
        "from -> to": f"{request.from_agent} -> {request.to_agent}",
        "task": request.task_description,
        "priority": str(request.priority),
        "deadline": _when(request.deadline) if request.deadline else "-",
        "response": record.response.reason if record.response else "-",
        "result": json.dumps(record.result) if record.result else "-",
        "created": _when(record.created_at),
        "updated": _when(record.updated_at),
        "config version": record.config_version or "-",
        "version": str(record.version),
    }
    lines = [f"{key + ':':<16}{printable(value)}" for key, value in fields.items()]
    return "\n".join([*lines, "history:", _render_history(record, "text")])


def _render_history(record: HandoffRecord, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(record.model_dump(mode="json")["history"], indent=2)
    lines = []
    for move in record.history:
        source = move.from_.value if move.from_ else "(new)"
        actor = f"  by {move.actor}" if move.actor else ""
        reason = f"  {move.reason}" if move.reason else ""
        lines.append(printable(f"  {_when(move.at)}  {move.trigger:<8} {source} ->"
                               f" {move.to.value}{actor}{reason}"))
    return "\n".join(lines)


def _when(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _short(text: str, width: int = 50) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."
