"""`handoff tools PATH --agent A --format FORMAT [--strict]`: an agent's handoff tool definitions.

Loads the set with the runtime's loader and prints, as JSON on stdout, the function-calling
tools for the handoffs the agent may make. `--strict` (OpenAI formats) marks a tool
`strict: true` with its parameters in strict form (every object closed, every property
required, optional ones nullable) when its payload schema allows it, and says on stderr which
tools stay non-strict and why. The model then sends `null` for an optional property it leaves
out: pass the arguments through `engine.adapters.strict.drop_strict_nulls` before
`Engine.handoff(tool_args=...)`, which checks them against the schema as written.
Exit 0 ok, 1 invalid config, 2 unknown agent or a format without strict mode.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

from engine.adapters.strict import strict_parameters
from engine.cli.output import render_issues
from engine.errors import ConfigError, UsageError
from engine.loading.loader import load_config
from engine.runtime.tools import TOOL_FORMATS, HandoffTool, handoff_tools

NAME = "tools"
HELP = "Print the handoff tools an agent may call, as LLM function-calling definitions (JSON)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("--agent", required=True, metavar="NAME",
                        help="the agent whose model gets the tools")
    parser.add_argument("--format", choices=tuple(TOOL_FORMATS), default="openai",
                        help="tool definition shape: openai (Chat Completions), openai-responses, "
                        "openai-realtime (Realtime and Azure VoiceLive), anthropic "
                        "(default: openai)")
    parser.add_argument("--strict", action="store_true",
                        help="strict-mode tools where the payload schema allows it (openai, "
                        "openai-responses)")


Render = Callable[[HandoffTool], dict[str, Any]]
STRICT_FORMATS = ("openai", "openai-responses")
"""The formats whose APIs take `strict: true` on a function tool."""


def execute(args: argparse.Namespace) -> int:
    if args.strict and args.format not in STRICT_FORMATS:
        raise UsageError(f"--strict applies to {' and '.join(STRICT_FORMATS)}, "
                         f"not {args.format}")
    try:
        snapshot = load_config(args.path)
    except ConfigError as error:
        print(render_issues(error.issues, "text"), file=sys.stderr)
        return 1
    tools = handoff_tools(snapshot, args.agent)  # UsageError (exit 2) for an unknown agent
    render = TOOL_FORMATS[args.format]
    rendered = [_strict(tool, render) if args.strict else render(tool) for tool in tools]
    print(json.dumps(rendered, indent=2))
    return 0


def _strict(tool: HandoffTool, render: Render) -> dict[str, Any]:
    """`tool` rendered in strict mode, or as it is (with a note on stderr) when its payload
    schema says something strict mode cannot."""
    parameters = strict_parameters(tool.parameters)
    if parameters is None:
        print(f"{tool.name}: left non-strict: its payload schema has a top level that is not "
              "an object, or an object that admits properties it does not list", file=sys.stderr)
        return render(tool)
    rendered = render(dataclasses.replace(tool, parameters=parameters))
    definition = rendered.get("function", rendered)  # Chat Completions nests the function
    definition["strict"] = True
    return rendered
