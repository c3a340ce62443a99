"""`handoff console CONFIG [--store FILE] [--port N] [--host H]`: the local web console.

Serves the topology, the routing playground, the record search and the eval report of one
config set (watched and hot-reloaded) on loopback, unless `--host` names another address.
Needs the `console` extra. Exit 0 on a clean stop, 1 bad config or store, 2 usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

from engine.cli.output import render_issues
from engine.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from engine.runtime.engine import Engine

NAME = "console"
HELP = "Serve a local web console: topology, routing playground, records and eval."
DEFAULT_PORT = 8765
INSTALL_HINT = "handoff console needs the console extra: pip install 'handoff-engine[console]'"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="CONFIG", help="an engine.yaml or a folder holding one")
    parser.add_argument("--store", metavar="FILE",
                        help="a SQLite record store (a path, or sqlite:///PATH as SQLAlchemy "
                             "reads it: sqlite:////abs.db is absolute), opened read-only")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N",
                        help=f"port to listen on (default: {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--host", metavar="H",
                        help="address to listen on (default: 127.0.0.1, this machine only); "
                             "anything else serves the console, unauthenticated, to the network")
    parser.add_argument("--max-upload-mb", type=float, default=8.0, metavar="MB",
                        help="largest corpus the eval page accepts by upload (default: 8)")


MAX_UPLOAD_MB = 1024 * 1024
"""The largest --max-upload-mb taken (a terabyte: in effect no limit, but a finite number)."""


def _listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket (IPv4 or IPv6 as the host says)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as error:
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from error
    return sock


def _serve(server: Any, sock: socket.socket) -> None:
    """Run until SIGINT or SIGTERM. The server stops gracefully on either, then raises the
    signal again for the caller: a quiet handler (SIGTERM) and the KeyboardInterrupt (SIGINT)
    make that a clean stop."""
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=[sock])
    print("stopped", file=sys.stderr, flush=True)


def _check(args: argparse.Namespace) -> None:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: must be between 0 and 65535")
    if not 0 < args.max_upload_mb <= MAX_UPLOAD_MB:
        raise UsageError(f"--max-upload-mb must be > 0 and at most {MAX_UPLOAD_MB}")


def execute(args: argparse.Namespace) -> int:
    _check(args)
    try:
        import uvicorn

        from engine.console.app import build_app
        from engine.console.records import open_store
        from engine.console.security import allowed_hosts, bind_host, is_loopback
    except ImportError:
        print(INSTALL_HINT, file=sys.stderr)
        return 1
    from engine.runtime.engine import Engine

    host = bind_host(args.host)
    try:
        engine = Engine(args.path, sweep_interval_s=None)  # records in memory: never written
    except ConfigError as error:
        print(render_issues(error.issues, "text"), file=sys.stderr)
        return 1
    store = open_store(args.store) if args.store else None
    try:
        sock = _listen(host, args.port)
        port = sock.getsockname()[1]
        app = build_app(engine, store=store, hosts=allowed_hosts(host, port),
                        max_upload=int(args.max_upload_mb * 1024 * 1024))
        _announce(engine, args, host, port, remote=not is_loopback(host))
        config = uvicorn.Config(app, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=1, lifespan="on")
        _serve(uvicorn.Server(config), sock)
    finally:
        engine.close()
        if store is not None:
            store.close()
    return 0


def _announce(engine: Engine, args: argparse.Namespace, host: str, port: int, *,
              remote: bool) -> None:
    shown = f"[{host}]" if ":" in host else host
    print(f"handoff console: http://{shown}:{port}/ ({engine.snapshot.config.engine.name}, "
          f"config {engine.version[:16]}; store {args.store or 'none'})", flush=True)
    if remote:
        print(f"handoff console: listening on {host}: anyone who can reach it sees the "
              "config and the records (no authentication)", file=sys.stderr, flush=True)
