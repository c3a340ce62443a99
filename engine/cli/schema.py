"""`handoff schema list|show NAME|export DIR`: the bundled JSON Schemas, from the package.

Every config schema (engine, agent, capabilities, routing, cases, listeners) and canonical
spec. Read-only except `export`, which writes copies into the folder it is given. Unknown
names are usage errors (exit 2).
"""

from __future__ import annotations

import argparse
import json

from engine.cli.output import path_argument
from engine.config.catalog import catalog, export_schemas, find_schema, schema_file
from engine.errors import SchemaNotFoundError, UsageError

NAME = "schema"
HELP = "List, print or export the bundled JSON Schemas (config documents and canonical specs)."


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every bundled schema: name, kind, title")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    show = actions.add_parser("show", help="print one schema as JSON")
    show.add_argument("name", metavar="NAME", help="a schema name from `handoff schema list`")
    show.add_argument("--path", action="store_true", help="print the file's path instead")
    export = actions.add_parser("export", help="copy every schema into a folder (for editors)")
    export.add_argument("folder", metavar="DIR", type=path_argument, help="created if needed")


def _list(fmt: str) -> None:
    entries = catalog()
    if fmt == "json":
        print(json.dumps({"schemas": [
            {"name": entry.name, "kind": entry.kind, "title": entry.title,
             "id": entry.schema_id, "file": entry.file} for entry in entries
        ]}, indent=2))
        return
    for entry in entries:
        print(f"{entry.name:<26}{entry.kind:<8}{entry.title}")


def execute(args: argparse.Namespace) -> int:
    if args.action == "list":
        _list(args.format)
        return 0
    if args.action == "export":
        written = export_schemas(args.folder)
        for path in written:
            args.terminal.info(f"wrote {path}")
        if not args.terminal.quiet:
            print(f"exported {len(written)} schemas to {args.folder}")
        return 0
    try:
        entry = find_schema(args.name)
    except SchemaNotFoundError as error:
        raise UsageError(str(error).replace("canonical schema", "bundled schema")) from error
    print(schema_file(entry) if args.path else json.dumps(entry.load(), indent=2))
    return 0
