"""`handoff graph PATH [--format mermaid|dot]`: print the agent topology of a config set.

Agents, the handoffs policy allows (labelled with triggers), rules, entry and fallback, as a
diagram to paste into a pull request. Loads with the runtime's loader; never writes files.
"""

from __future__ import annotations

import argparse

from engine.config.loader import load_config
from engine.routing.graph import RENDERER_BY_NAME

NAME = "graph"
HELP = "Print the agent topology of a config set as a Mermaid or Graphviz DOT diagram."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("--format", choices=tuple(RENDERER_BY_NAME), default="mermaid",
                        help="diagram language (default: mermaid)")


def execute(args: argparse.Namespace) -> int:
    snapshot = load_config(args.path)
    print(RENDERER_BY_NAME[args.format](snapshot))
    return 0
