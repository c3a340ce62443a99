"""`handoff watch PATH`: run the engine with hot reload and print every reload result.

The loop a team keeps open while editing YAML: one line per applied reload, the issues of a
rejected one (`file:line:col: error[code] ...`), the last good config serving throughout, and
"serving again" with the version once an edit fixes a rejected one. `--metrics-port` serves
Prometheus metrics on localhost; `--log-format json` writes the engine's logs (one line per
reload) to stderr as JSON. Stops cleanly on SIGINT/SIGTERM. Exit 0 on a clean stop, 1 if the
config is invalid at start. `--once` loads, reports and exits without watching;
`--until-reload` watches until the first reload result.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from engine.cli.output import PLAIN, render_issues
from engine.cli.terminal import Terminal
from engine.errors import ConfigError, UsageError
from engine.runtime.engine import Engine
from engine.runtime.reload import ReloadResult
from engine.runtime.watch import ConfigWatcher
from engine.runtime.watch_options import WatchOptions

NAME = "watch"
HELP = "Run the engine on a config set with hot reload and print each reload result."
FORMATS = ("text", "json")
LOG_FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="an engine.yaml or a folder holding one")
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text lines, or one JSON object per line (default: text)")
    parser.add_argument("--once", action="store_true",
                        help="load the set, print the serving line (or its issues) and exit "
                             "without watching (0 valid, 1 invalid)")
    parser.add_argument("--until-reload", action="store_true",
                        help="watch until the first reload result, then exit "
                             "(0 applied, 1 rejected)")
    parser.add_argument("--poll", type=float, default=5.0, metavar="SECONDS",
                        help="also re-check the files this often (default: 5; 0 turns it off)")
    parser.add_argument("--debounce-ms", type=int, default=25, metavar="MS",
                        help="quiet time that ends a burst of saves (default: 25)")
    parser.add_argument("--settle-ms", type=int, default=WatchOptions().settle_ms, metavar="MS",
                        help="time the files must be unchanged before a reload is served "
                             f"(default: {WatchOptions().settle_ms})")
    parser.add_argument("--metrics-port", type=int, metavar="PORT",
                        help="serve Prometheus metrics at http://127.0.0.1:PORT/metrics "
                             "(0: any free port; needs the 'prometheus' extra)")
    parser.add_argument("--log-format", choices=LOG_FORMATS, default="text",
                        help="engine logs on stderr: text, or one JSON object per line with "
                             "one line per reload (default: text)")


def _line(payload: dict[str, Any], fmt: str, terminal: Terminal = PLAIN) -> str:
    if fmt == "json":
        return json.dumps(payload)
    version = payload["version"]
    if payload["event"] == "started":
        metrics = f"; metrics at {payload['metrics']}" if "metrics" in payload else ""
        watching = "watching" if payload.get("watching", True) else "not watching (--once)"
        return (f"serving {version} ({payload['name']}, {payload['agents']} agents); "
                f"{watching}{metrics}")
    again = payload.get("recovered_after", 0)
    fixed = (terminal.paint("serving again", "green") + f" after {again} rejected reload(s): "
             if again else "")
    if payload["outcome"] == "applied":
        return (f"{fixed}applied {version} (was {payload['previous_version']}) "
                f"in {payload['ms']} ms")
    if payload["outcome"] == "unchanged":
        return f"{fixed}{version} (the files are back to the serving version)"
    issues = [issue for issue in payload["issues"]]
    head = f"{terminal.paint('rejected', 'red')}: still serving {version}; {len(issues)} issue(s):"
    return "\n".join([head, *(f"  {issue}" for issue in issues)])


def _result(result: ReloadResult, fmt: str, *, recovered_after: int = 0,
            terminal: Terminal = PLAIN) -> str:
    payload = {
        "event": "reload", "outcome": result.outcome, "version": result.version,
        "previous_version": result.previous_version,
        "ms": round(result.duration_s * 1000),
        "issues": [issue.to_dict() if fmt == "json" else str(issue) for issue in result.issues],
    }
    if recovered_after:
        payload["recovered_after"] = recovered_after
    return _line(payload, fmt, terminal)


class _Reporter:
    """Prints each reload result; counts rejections so the next good result says it fixed them."""

    def __init__(self, args: argparse.Namespace, stop: asyncio.Event) -> None:
        self.args, self.stop = args, stop
        self.rejected_in_a_row = 0
        self.outcomes: list[str] = []
        self.reader_gone = False

    def __call__(self, result: ReloadResult) -> None:
        fixed = 0 if result.outcome == "rejected" else self.rejected_in_a_row
        self.rejected_in_a_row = self.rejected_in_a_row + 1 if result.outcome == "rejected" else 0
        if result.outcome == "unchanged" and not fixed and self.args.format == "text":
            return  # the same good files validated again: nothing to say
        try:
            print(_result(result, self.args.format, recovered_after=fixed,
                          terminal=self.args.terminal), flush=True)
        except BrokenPipeError:  # whoever read the lines (`| head`) is gone: stop watching
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            self.reader_gone = True
            self.stop.set()
            return
        self.outcomes.append(result.outcome)
        if self.args.until_reload:
            self.stop.set()


async def _run(engine: Engine, args: argparse.Namespace, metrics: str | None) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    snapshot = engine.snapshot  # announced once a signal can stop us cleanly
    started = {"event": "started", "version": snapshot.version,
               "name": snapshot.config.engine.name, "agents": len(snapshot.agents)}
    if metrics is not None:
        started["metrics"] = metrics
    if args.once:
        started["watching"] = False
    print(_line(started, args.format), flush=True)
    if args.once:
        return 0  # loaded and reported: nothing is watched
    report = _Reporter(args, stop)
    engine.reloader.hooks.bind_loop(loop)
    await ConfigWatcher(engine.reloader, options=args.options, on_result=report).arun(stop)
    if report.reader_gone:
        return 1  # as any command whose reader went away (see `engine.cli.main`)
    return 1 if args.until_reload and report.outcomes[-1:] == ["rejected"] else 0


def _options(args: argparse.Namespace) -> WatchOptions:
    """The watch options the flags ask for; a value out of range is a UsageError naming the
    flag (`--poll 0` turns polling off)."""
    poll = None if args.poll == 0 else args.poll
    try:
        return WatchOptions(debounce_ms=args.debounce_ms, settle_ms=args.settle_ms,
                            poll_interval_s=poll)
    except UsageError as error:
        message = str(error)
        for field, flag in _FLAGS.items():
            message = message.replace(field, flag)
        raise UsageError(message) from None


_FLAGS = {"debounce_ms": "--debounce-ms", "settle_ms": "--settle-ms",
          "poll_interval_s": "--poll"}
"""WatchOptions field -> the flag that sets it, for messages."""


def execute(args: argparse.Namespace) -> int:
    args.options = _options(args)
    if args.once and args.until_reload:
        raise UsageError("--once exits after loading; --until-reload after the first reload: "
                         "give one of them")
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        raise UsageError(f"--metrics-port must be 0-65535, got {args.metrics_port}")
    try:
        engine = Engine(args.path)
    except ConfigError as error:
        print(render_issues(error.issues, args.format), flush=True)
        return 1
    with engine, contextlib.ExitStack() as stack:
        if args.log_format == "json":
            stack.callback(_log_json(engine))
        else:
            logging.getLogger("engine.reload").addHandler(logging.NullHandler())  # printed
        metrics = _serve_metrics(engine, args.metrics_port, stack)
        code = asyncio.run(_run(engine, args, metrics))
    if not args.once:  # a watch that ran and ended
        print("stopped", file=sys.stderr, flush=True)
    return code


def _log_json(engine: Engine) -> Callable[[], None]:
    """Engine logs to stderr as JSON lines, one per reload; returns the undo."""
    from engine.observability.jsonlog import JsonLogObserver, log_json_to

    handler = log_json_to(sys.stderr)
    reload_log = logging.getLogger("engine.reload")
    reload_log.propagate = False  # its messages repeat the reload line of `engine.events`
    silent = logging.NullHandler()  # else Python's last-resort handler prints them as text
    reload_log.addHandler(silent)
    engine.observe(JsonLogObserver())

    def undo() -> None:
        logging.getLogger("engine").removeHandler(handler)
        reload_log.removeHandler(silent)
        reload_log.propagate = True

    return undo


def _serve_metrics(engine: Engine, port: int | None, stack: contextlib.ExitStack) -> str | None:
    """Serve the engine's metrics on localhost; the URL, or None without `--metrics-port`."""
    if port is None:
        return None
    registry = engine.metrics()  # MissingExtra (a usage error) without the extra
    from engine.observability.prometheus import serve

    try:
        server, _ = serve(registry, port)
    except OSError as error:
        raise UsageError(f"--metrics-port {port}: cannot listen on 127.0.0.1: {error}") from None
    stack.callback(server.server_close)
    stack.callback(server.shutdown)
    return f"http://127.0.0.1:{server.server_port}/metrics"
