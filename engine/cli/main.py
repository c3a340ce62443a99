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

from engine.cli.terminal import add_options, from_args
from engine.errors import EngineError, UsageError

COMMAND_MODULES: dict[str, str] = {
    "check": "check",
    "route": "route",
    "test": "cases",
    "graph": "graph",
    "records": "records",
    "tools": "tools",
    "export": "export",
    "watch": "watch",
    "schema": "schema",
    "validate": "validate",
    "eval": "eval",
    "learn": "learn",
    "console": "console",
    "init": "init",
}
"""Command name -> module in this package. Only the invoked command's module is imported."""

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def _commands(argv: Sequence[str]) -> dict[str, ModuleType]:
    """The modules needed to parse `argv`: just the named command's, or all (for help)."""
    named = next((arg for arg in argv if arg in COMMAND_MODULES), None)
    wanted = [named] if named is not None else list(COMMAND_MODULES)
    return {
        name: importlib.import_module(f"engine.cli.{COMMAND_MODULES[name]}") for name in wanted
    }


class _Version(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object, **_kw: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("handoff-engine")
        except PackageNotFoundError:  # running from a checkout that was never installed
            found = "unknown (not installed)"
        print(f"handoff {found}")
        parser.exit()


def build_parser(commands: dict[str, ModuleType]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff",
        description="Validate, route and run multi-agent handoff configs.",
    )
    parser.add_argument("--version", action=_Version)
    add_options(parser, top=True)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in commands.items():
        sub = subparsers.add_parser(name, help=module.HELP, description=module.HELP)
        add_options(sub, top=False)
        module.configure(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    commands = _commands(arguments)
    args = build_parser(commands).parse_args(arguments)
    args.terminal = from_args(args)
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
