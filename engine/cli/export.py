"""`handoff export PATH --format pipecat-flow [-o FILE]`: a config set in another framework's
declarative format, where the two models overlap.

Loads the set with the runtime's loader and writes the export (YAML, or JSON for a `.json`
output file) to stdout or FILE; every config feature the format cannot hold is listed on stderr
under "not carried over". Exit 0 ok, 1 invalid config.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ruamel.yaml import YAML

from engine.adapters.pipecat_flow import FlowExport, export_flow
from engine.cli.output import render_issues, write_output
from engine.errors import ConfigError
from engine.loading.loader import load_config
from engine.routing.snapshot import Snapshot

NAME = "export"
HELP = "Write a config set in another framework's declarative format (Pipecat Flows FlowConfig)."

EXPORT_FORMATS: dict[str, Callable[[Snapshot], FlowExport]] = {"pipecat-flow": export_flow}
"""Format name -> exporter; feeds `--format`."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("--format", choices=tuple(EXPORT_FORMATS), required=True,
                        help="pipecat-flow: a Pipecat Flows FlowConfig (pipecat.flows)")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="write here instead of stdout (.json, any case: JSON, else YAML)")


def execute(args: argparse.Namespace) -> int:
    try:
        snapshot = load_config(args.path)
    except ConfigError as error:
        print(render_issues(error.issues, "text"), file=sys.stderr)
        return 1
    export = EXPORT_FORMATS[args.format](snapshot)
    as_json = args.output is not None and args.output.suffix.lower() == ".json"
    text = json.dumps(export.config, indent=2) + "\n" if as_json else _yaml(export.config)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_output(args.output, text)
        print(f"wrote {args.format} to {args.output}", file=sys.stderr)
    if export.dropped:
        lines = "\n".join(f"  {line}" for line in export.dropped)
        print(f"not carried over ({len(export.dropped)}):\n{lines}", file=sys.stderr)
    return 0


def _yaml(data: object) -> str:
    yaml = YAML()  # round-trip dumper: keeps the FlowConfig's field order
    yaml.default_flow_style = False
    yaml.width = 4096  # one line per value: no folded prose
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    return buffer.getvalue()
