"""`handoff validate NAME FILE...`: check YAML or JSON documents against a bundled schema.

Reads each file (`-`: standard input) through the config pipeline's document reader (size
cap, safe YAML, positions) and validates it against the JSON Schema; for a canonical spec it
then builds the spec model for the rules JSON Schema cannot express. Every issue is located
at file:line:col; exit 0/1/2 as `check`.
"""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import ValidationError

from engine.cli.output import FORMATS, plural, render_issues
from engine.config import schemas
from engine.config.catalog import catalog, find_schema
from engine.config.document import read_document
from engine.config.positions import Document, json_path
from engine.config.read import DEFAULT_MAX_BYTES
from engine.config.validate import validate_document
from engine.errors import SchemaNotFoundError, UsageError
from engine.issues import Issue
from engine.specs.loader import validator_for
from engine.specs.models import MODEL_BY_SCHEMA

NAME = "validate"
HELP = "Validate YAML or JSON documents against a bundled schema (see `handoff schema list`)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME",
                        help="schema name: a config document (agent, routing...) or a spec")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="YAML or JSON documents ('-' reads the standard input)")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="report format (default: text)")
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, metavar="N",
                        help=f"size cap per file in bytes (default: {DEFAULT_MAX_BYTES})")


def _model_issues(document: Document, name: str) -> list[Issue]:
    """Rules only the model can check (orderings, contiguous indices), located."""
    try:
        MODEL_BY_SCHEMA[name].model_validate(document.data)
    except ValidationError as error:
        return [_located(document, item) for item in error.errors()]
    return []


def _located(document: Document, item: Any) -> Issue:
    path = tuple(part for part in item["loc"] if isinstance(part, str | int))
    line, col = document.locate(path)
    message = str(item["msg"]).removeprefix("Value error, ")
    return Issue(document.file, line, col, json_path(path), "schema", message)


def validate_file(path: str, name: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Issue]:
    """Every issue of one file against the bundled schema `name` (a short name)."""
    document, _source, issues = read_document(path, None, max_bytes=max_bytes)
    if document is None:
        return issues
    entry = find_schema(name)
    if entry.kind == "config":
        return validate_document(document, entry.file, validator=schemas.validator_for(entry.file))
    issues = validate_document(document, name, validator=validator_for(name))
    return issues or _model_issues(document, name)


def execute(args: argparse.Namespace) -> int:
    try:
        find_schema(args.name)
    except SchemaNotFoundError:
        known = ", ".join(sorted(entry.name for entry in catalog()))
        raise UsageError(f"no bundled schema named {args.name!r} (known: {known})") from None
    if args.max_bytes <= 0:
        raise UsageError(f"--max-bytes must be positive, got {args.max_bytes}")
    if args.files.count("-") > 1:
        raise UsageError("'-' (the standard input) can be given once")
    issues = [found for path in args.files for found in validate_file(path, args.name,
                                                                       max_bytes=args.max_bytes)]
    scope = f"validated {plural(len(args.files), 'file')}"
    report = render_issues(issues, args.format, scope=scope, terminal=args.terminal)
    if report:
        print(report)
    return 1 if any(found.is_error for found in issues) else 0
