"""`handoff` entry point: parse the arguments, dispatch to a subcommand, map errors to exit codes.

Each subcommand is a module in this package with `NAME`, `HELP`, `configure(parser)` and
`execute(args) -> int`. Exit codes: 0 ok, 1 findings or failure, 2 usage error.
Results go to stdout, diagnostics to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from engine.errors import EngineError, UsageError

COMMAND_MODULES: tuple[str, ...] = (
    "check", "records", "schema", "validate", "route", "cases", "graph", "watch", "tools",
)

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def _commands() -> dict[str, ModuleType]:
    modules = (importlib.import_module(f"engine.cli.{name}") for name in COMMAND_MODULES)
    return {module.NAME: module for module in modules}


def build_parser(commands: dict[str, ModuleType]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff",
        description="Validate, route and run multi-agent handoff configs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in commands.items():
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    commands = _commands()
    args = build_parser(commands).parse_args(argv)
    try:
        code: int = commands[args.command].execute(args)
    except UsageError as error:
        print(f"handoff {args.command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except EngineError as error:
        print(f"handoff {args.command}: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, as other CLI tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FINDINGS
    return code


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
