"""`handoff graph PATH [--format ...]`: the agent topology of a config set, as text or a picture.

Agents, the handoffs policy allows (labelled with triggers), rules, entry and fallback: Mermaid
(fenced, ready to paste into a pull request; `mermaid-raw` without the fence), Graphviz DOT,
SVG, a standalone HTML page, or PNG (the `graph` extra). Loads with the runtime's loader;
writes only to stdout or the `--output` file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from engine.cli.output import write_output
from engine.errors import UsageError
from engine.loading.loader import load_config
from engine.routing.graph import RENDERER_BY_NAME
from engine.routing.snapshot import Snapshot

NAME = "graph"
HELP = "Print the agent topology of a config set: Mermaid, DOT, SVG, HTML or PNG."


def _fenced(snapshot: Snapshot) -> str:
    return f"```mermaid\n{RENDERER_BY_NAME['mermaid'](snapshot)}\n```"


def _svg(snapshot: Snapshot) -> str:
    from engine.routing.graph_svg import svg

    return svg(snapshot)


def _html(snapshot: Snapshot) -> str:
    from engine.routing.graph_svg import html

    return html(snapshot)


def _png(snapshot: Snapshot) -> bytes:
    from engine.routing.graph_png import png

    return png(snapshot)


FORMATS: dict[str, Callable[[Snapshot], str | bytes]] = {
    "mermaid": _fenced,
    "mermaid-raw": RENDERER_BY_NAME["mermaid"],
    "dot": RENDERER_BY_NAME["dot"],
    "svg": _svg,
    "html": _html,
    "png": _png,
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("--format", choices=tuple(FORMATS), default="mermaid",
                        help="mermaid (a fenced block for a pull request), mermaid-raw, dot, "
                             "svg, html or png (default: mermaid)")
    parser.add_argument("--output", "-o", type=Path, metavar="FILE",
                        help="write here instead of stdout (needed for png on a terminal)")


def execute(args: argparse.Namespace) -> int:
    snapshot = load_config(args.path)
    picture = FORMATS[args.format](snapshot)
    if args.output is not None:
        if isinstance(picture, str) and not picture.endswith("\n"):
            picture += "\n"
        write_output(args.output, picture)
        return 0
    if isinstance(picture, bytes):
        if sys.stdout.isatty():
            raise UsageError("PNG is binary: pass --output FILE or redirect stdout")
        sys.stdout.flush()
        sys.stdout.buffer.write(picture)
        return 0
    print(picture.rstrip("\n"))
    return 0
