"""`handoff schema list|show NAME`: list the bundled canonical schemas or print one.

Read-only; it prints schemas and nothing else. Unknown names are usage errors (exit 2).
"""

from __future__ import annotations

import argparse
import json

from engine.errors import SchemaNotFoundError, UsageError
from engine.specs import get_schema_path, list_schemas, load_schema

NAME = "schema"
HELP = "List the bundled canonical schemas, or print one."


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="names of the canonical schemas")
    listing.add_argument("--format", choices=("text", "json"), default="text")
    show = actions.add_parser("show", help="print one schema as JSON")
    show.add_argument("name", metavar="NAME", help="a schema name from `handoff schema list`")
    show.add_argument("--path", action="store_true", help="print the file's path instead")


def _list(args: argparse.Namespace) -> int:
    names = list_schemas()
    if args.format == "json":
        print(json.dumps({"schemas": [
            {"name": name, "title": load_schema(name).get("title", "")} for name in names
        ]}, indent=2))
    else:
        for name in names:
            print(f"{name:<26}{load_schema(name).get('title', '')}")
    return 0


def execute(args: argparse.Namespace) -> int:
    if args.action == "list":
        return _list(args)
    try:
        print(get_schema_path(args.name) if args.path else json.dumps(load_schema(args.name),
                                                                       indent=2))
    except SchemaNotFoundError as error:
        raise UsageError(str(error)) from error
    return 0
