"""`handoff tools PATH --agent A --format FORMAT`: an agent's handoff tool definitions.

Loads the set with the runtime's loader and prints, as JSON on stdout, the function-calling
tools for the handoffs the agent may make. Exit 0 ok, 1 invalid config, 2 unknown agent.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.cli.output import render_issues
from engine.config.loader import load_config
from engine.errors import ConfigError
from engine.runtime.tools import TOOL_FORMATS, handoff_tools

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


def execute(args: argparse.Namespace) -> int:
    try:
        snapshot = load_config(args.path)
    except ConfigError as error:
        print(render_issues(error.issues, "text"), file=sys.stderr)
        return 1
    tools = handoff_tools(snapshot, args.agent)  # UsageError (exit 2) for an unknown agent
    render = TOOL_FORMATS[args.format]
    print(json.dumps([render(tool) for tool in tools], indent=2))
    return 0
