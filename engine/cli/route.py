"""`handoff route PATH --from AGENT [...] "task text"`: route one request and show why.

Loads the set with the runtime's loader, builds one `RouteRequest` from the arguments and
prints the `RouteDecision` (text or json). Exit 0 routed, 1 refused or bad config, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine.errors import UsageError
from engine.loading.loader import load_config
from engine.routing import Router, RouteRequest
from engine.routing.explain import render_text
from engine.routing.explanation import explain_turn
from engine.routing.requests import check_request, parse_context, parse_hops

NAME = "route"
HELP = "Route one handoff request through a config set and explain the decision."
FORMATS = ("text", "json")


class _IntermixedParser(argparse.ArgumentParser):
    """Lets the task text come after the options (`PATH --from A "text"`): plain argparse
    binds every positional at its first run of positionals and would leave the text over."""

    _parsing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._parsing:
            return super().parse_known_args(args, namespace)
        self._parsing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._parsing = False


def configure(parser: argparse.ArgumentParser) -> None:
    parser.__class__ = _IntermixedParser
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("text", nargs="*", metavar="TEXT",
                        help="the task text (quote it; '-' reads it from the standard input)")
    parser.add_argument("--from", dest="sender", required=True, metavar="AGENT",
                        help="the agent handing off")
    parser.add_argument("--tool", action="append", default=[], metavar="NAME",
                        help="the handoff tool the sender's model called; repeat it for "
                             "several handoffs in one turn (policies.multiple_handoffs)")
    parser.add_argument("--context", action="append", default=[], metavar="KEY=VALUE",
                        help="a context value (repeatable); JSON scalars are typed: n=3, ok=true")
    parser.add_argument("--priority", type=int, default=5, metavar="N",
                        help="request priority 1-10 (default: 5)")
    parser.add_argument("--capability", action="append", default=[], metavar="NAME",
                        help="a capability asked for explicitly (repeatable)")
    parser.add_argument("--hop", action="append", default=[], metavar="FROM:TO",
                        help="a past handoff of the session, oldest first (repeatable)")
    parser.add_argument("--explain", action="store_true",
                        help="show every candidate, its score and why it was dropped")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default: text)")


MAX_STDIN_CHARS = 65536


def task_text(words: Sequence[str]) -> str:
    """The task text: the words given, or the standard input for a lone `-` (either at most
    `MAX_STDIN_CHARS` characters)."""
    if list(words) != ["-"]:
        text, where = " ".join(words), "given as arguments"
    else:
        text, where = sys.stdin.read(MAX_STDIN_CHARS + 1), "on the standard input"
    if len(text) > MAX_STDIN_CHARS:
        raise UsageError(f"the task text {where} is over {MAX_STDIN_CHARS} chars")
    return text.strip()


def execute(args: argparse.Namespace) -> int:
    base = RouteRequest(
        sender=args.sender,
        text=task_text(args.text),
        context=parse_context(args.context),
        priority=args.priority,
        capabilities=tuple(args.capability),
    )
    requests = [base._replace(tool=tool) for tool in args.tool] or [base]
    history = parse_hops(args.hop)
    if not base.text.strip():
        raise UsageError("the task text is empty; pass it as the last argument")
    snapshot = load_config(args.path)
    for request in requests:
        check_request(snapshot, request, history)
    explained = explain_turn(Router(snapshot), requests, history=history)
    decision = explained.decision
    if args.format == "json":
        document = explained.to_dict() if args.explain else decision.to_dict()
        print(json.dumps(document, indent=2))
    else:
        print(render_text(decision, explain=args.explain, checks=explained.checks,
                          normalization=(explained.steps, explained.trace)))
    return 0 if decision.routed else 1
