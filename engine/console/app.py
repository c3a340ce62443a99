"""The console's ASGI app (Starlette): four pages over one watched config and an optional
record store, their HTML fragments for in-place updates, a change feed and the assets.

Every route reads; none changes the config or a record (the one POST runs an evaluation of an
uploaded corpus). Pages are rendered on the server by `views`; page logic lives in its module.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from jinja2 import Environment
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from engine.console import corpora, evaluation, playground
from engine.console.live import LiveConfig
from engine.console.records import RecordsView, Search, timeline
from engine.console.security import Guard
from engine.console.views import environment, load_assets, render
from engine.errors import RecordNotFound, StoreError, UsageError
from engine.records.models import HandoffStatus
from engine.records.store import Store
from engine.redaction import Redactor
from engine.routing import graph_svg
from engine.runtime.engine import Engine
from engine.runtime.reload import config_root
from engine.runtime.watch_options import WatchOptions

DEFAULT_WATCH = WatchOptions(poll_interval_s=2.0)
"""How the console watches the config folder: events, plus a fingerprint check every 2 s."""
HEARTBEAT_S = 15.0
"""How often an idle change feed sends a comment line (keeps proxies and the browser awake)."""


@dataclass(slots=True)
class Console:
    """What the routes share: the live config, the record store (if any) and the templates."""

    live: LiveConfig
    store: Store | None
    env: Environment
    max_upload: int
    assets: dict[str, tuple[bytes, str]] = field(default_factory=load_assets)

    @property
    def engine(self) -> Engine:
        return self.live.engine

    @property
    def root(self) -> Path:
        """The config set's folder."""
        return config_root(self.engine.reloader.path)

    def page(self, name: str, request: Request, status: int = 200, **values: Any) -> Response:
        snapshot = self.engine.snapshot
        context = {"config": snapshot.config.engine, "version": snapshot.version,
                   "last": self.live.last, "generation": self.live.generation,
                   "store": None if self.store is None else self.store.location,
                   "path": request.url.path, "base": str(self.root.parent), **values}
        return HTMLResponse(render(self.env, name, context), status_code=status,
                            headers={"cache-control": "no-store"})

    def records(self) -> RecordsView | None:
        if self.store is None:
            return None
        spec = self.engine.snapshot.config.engine.redact
        return RecordsView(self.store,
                           Redactor(spec.keys, defaults=spec.defaults, values=spec.values))


def _topology(console: Console, request: Request, *, fragment: bool) -> Response:
    snapshot = console.engine.snapshot
    return console.page("topology_live.html" if fragment else "topology.html", request,
                        snapshot=snapshot, picture=graph_svg.picture(snapshot),
                        max_drawn=graph_svg.MAX_DRAWN_AGENTS)


async def _events(console: Console, request: Request) -> Response:
    async def stream() -> AsyncIterator[str]:
        seen = console.live.generation
        yield f"retry: 2000\ndata: {seen}\n\n"
        while True:
            now = await console.live.changed(since=seen, timeout=HEARTBEAT_S)
            yield f"data: {now}\n\n" if now != seen else ": idle\n\n"
            seen = now

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"cache-control": "no-store"})


def _playground(console: Console, request: Request, *, fragment: bool) -> Response:
    form = playground.Form.parse(request.query_params)
    router = console.engine.router()
    explained, error = None, None
    if form.submitted:
        try:
            explained = playground.route(router, form)
        except UsageError as problem:
            error = str(problem)
    snapshot = router.snapshot
    tables = snapshot.tables
    tools = sorted({*snapshot.handoff_map, *(tables.rule_tools if tables else ())})
    return console.page("decision.html" if fragment else "playground.html", request,
                        status=400 if error else 200, form=form, explained=explained,
                        error=error, agents=list(snapshot.agents), tools=tools,
                        entry=snapshot.config.engine.entry)


def _records(console: Console, request: Request) -> Response:
    view, page, error = console.records(), None, None
    search = Search()
    if view is not None:
        try:
            search = Search.parse(request.query_params)
            page = view.search(search)
        except UsageError as problem:
            error = str(problem)
    return console.page("records.html", request, status=400 if error else 200, search=search,
                        page=page, error=error, statuses=[s.value for s in HandoffStatus],
                        agents=list(console.engine.snapshot.agents),
                        params=dict(request.query_params))


def _record(console: Console, request: Request) -> Response:
    view = console.records()
    if view is None:
        return console.page("record.html", request, status=404, record=None, steps=[],
                            error="no record store: start the console with --store FILE")
    record_id = request.path_params["record_id"]
    try:
        record = view.get(record_id)
    except RecordNotFound:
        return console.page("record.html", request, status=404, record=None, steps=[],
                            error=f"no handoff record with id {record_id!r}")
    return console.page("record.html", request, record=record, steps=timeline(record),
                        error=None)


def _eval_page(console: Console, request: Request) -> Response:
    root = console.root
    chosen = request.query_params.get("corpus", "")
    result, error = None, None
    if chosen:
        try:
            path = corpora.pick_corpus(root, chosen)
            result = evaluation.run_eval(console.engine.router(), path, label=chosen)
        except UsageError as problem:
            error = str(problem)
    return console.page("eval.html", request, status=400 if error else 200,
                        corpora=corpora.shipped_corpora(root), chosen=chosen,
                        result=result, error=error, max_upload=console.max_upload)


async def _eval_upload(console: Console, request: Request) -> Response:
    name = unquote(request.headers.get("x-corpus-name", "upload.csv"))[:200]
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > console.max_upload:
        error = str(evaluation.UploadTooLarge(console.max_upload))
        return console.page("eval_result.html", request, status=413, result=None, error=error)
    try:
        path = await evaluation.save_upload(request.stream(), filename=name,
                                            limit=console.max_upload)
    except evaluation.UploadTooLarge as problem:
        return console.page("eval_result.html", request, status=413, result=None,
                            error=str(problem))
    try:
        result = await asyncio.to_thread(evaluation.run_eval, console.engine.router(), path,
                                         label=f"uploaded: {name}")
    except UsageError as problem:  # e.g. no rows: refused like a bad shipped corpus
        return console.page("eval_result.html", request, status=400, result=None,
                            error=str(problem))
    finally:
        path.unlink(missing_ok=True)
    return console.page("eval_result.html", request, result=result, error=None)


def _asset(console: Console, request: Request) -> Response:
    found = console.assets.get(request.path_params["name"])
    if found is None:
        return Response("not found", status_code=404, media_type="text/plain")
    return Response(found[0], media_type=found[1], headers={"cache-control": "no-cache"})


Handler = Callable[..., Any]


def _endpoint(console: Console, handler: Handler, **fixed: Any) -> Callable[[Request], Any]:
    """A Starlette endpoint calling `handler(console, request, **fixed)`: coroutines on the
    loop, plain functions (store reads, routing, evaluation) on a worker thread."""

    async def endpoint(request: Request) -> Response:
        try:
            if inspect.iscoroutinefunction(handler):
                response: Response = await handler(console, request, **fixed)
            else:
                response = await asyncio.to_thread(handler, console, request, **fixed)
        except StoreError as error:
            return console.page("error.html", request, status=500, error=str(error))
        return response

    return endpoint


ROUTES: list[tuple[str, Handler, dict[str, Any]]] = [
    ("/topology", _topology, {"fragment": False}),
    ("/topology/live", _topology, {"fragment": True}),
    ("/topology/events", _events, {}),
    ("/playground", _playground, {"fragment": False}),
    ("/playground/decision", _playground, {"fragment": True}),
    ("/records", _records, {}),
    ("/records/{record_id:path}", _record, {}),
    ("/eval", _eval_page, {}),
    ("/static/{name}", _asset, {}),
]
"""Every page and fragment (GET); the eval upload is the one POST."""


def build_app(
    engine: Engine,
    *,
    store: Store | None = None,
    watch: WatchOptions | None = DEFAULT_WATCH,
    max_upload: int = evaluation.MAX_UPLOAD_BYTES,
    hosts: frozenset[str] | None = None,
) -> Guard:
    """The console for `engine` (and `store`); `watch=None` does not watch the folder.
    `hosts` are the `Host` header values it answers (None: any)."""
    console = Console(LiveConfig(engine), store, environment(), max_upload)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        console.live.bind(asyncio.get_running_loop())
        if watch is None:
            yield
            return
        async with engine.watcher(options=watch):
            yield

    routes = [Route(path, _endpoint(console, handler, **fixed)) for path, handler, fixed in ROUTES]
    routes.append(Route("/eval/upload", _endpoint(console, _eval_upload), methods=["POST"]))
    routes.append(Route("/", lambda request: RedirectResponse("/topology", status_code=303)))
    return Guard(Starlette(routes=routes, lifespan=lifespan), hosts=hosts)
