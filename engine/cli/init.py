"""`handoff init DIR`: scaffold a starter config set that passes `check --strict` and `test`.

Writes engine.yaml, two agents, capabilities, routing and routing cases into DIR, and exports
the bundled schemas (default `.handoff/schemas`) for the files' editor modelines. It never
overwrites a file of the set: if any exists, it writes nothing and exits 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli.output import path_argument
from engine.config.catalog import export_schemas
from engine.scaffold import Scaffold

NAME = "init"
HELP = "Scaffold a starter config set (engine, two agents, capabilities, routing, cases)."
SCHEMAS = ".handoff/schemas"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="DIR", type=path_argument,
                        help="where to write the set")
    parser.add_argument("--name", help="the set's name (default: DIR's name)")
    parser.add_argument("--schemas", type=path_argument, default=Path(SCHEMAS), metavar="PATH",
                        help=f"where to export the schemas the modelines point at "
                             f"(default: {SCHEMAS}, from the current folder)")


def execute(args: argparse.Namespace) -> int:
    name = args.name or args.folder.resolve().name
    scaffold = Scaffold(folder=args.folder, schemas=args.schemas, name=name)
    scaffold.check()
    exported = export_schemas(args.schemas)  # first: a bad --schemas leaves no half-written set
    written = scaffold.write()
    terminal = args.terminal
    for path in written:
        terminal.info(f"wrote {path}")
    if not terminal.quiet:
        print(f"created config set {name!r} in {args.folder} ({len(written)} files); "
              f"schemas in {args.schemas} ({len(exported)} files)")
        print(f"next: handoff check {args.folder} --strict && handoff test {args.folder}")
    return 0
