"""Templates and assets shipped in the package, read with `importlib.resources`: the Jinja
environment (autoescape on: every value a template prints is escaped) and the static files.

Loading and formatting only; what a page shows is decided by the route that renders it.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from importlib import resources
from typing import Any
from urllib.parse import quote

from jinja2 import DictLoader, Environment, StrictUndefined
from markupsafe import Markup

ASSET_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".svg": "image/svg+xml"}


def _read_folder(folder: str, suffixes: tuple[str, ...]) -> dict[str, bytes]:
    root = resources.files("engine.console").joinpath(folder)
    return {item.name: item.read_bytes() for item in root.iterdir()
            if item.is_file() and item.name.endswith(suffixes)}


def load_assets() -> dict[str, tuple[bytes, str]]:
    """Static files by name, with their content type."""
    found = _read_folder("static", tuple(ASSET_TYPES))
    return {name: (data, ASSET_TYPES["." + name.rsplit(".", 1)[-1]])
            for name, data in found.items()}


def when(moment: datetime | float | None) -> str:
    """A UTC time to the second, as people read it: `2026-03-31 23:59:07Z`."""
    if moment is None:
        return "-"
    if isinstance(moment, (int, float)):
        moment = datetime.fromtimestamp(moment, timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")


def percent(value: object) -> str:
    return f"{float(value):.1%}" if isinstance(value, (int, float)) else "-"


def score(value: float) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def shown_path(file: str, base: str) -> str:
    """`file` relative to `base` (the folder above the config set) when it lies below it."""
    relative = os.path.relpath(file, base) if file and base else file
    return file if relative.startswith("..") else relative


def segment(value: str) -> str:
    """`value` as one URL path segment: every reserved character percent-encoded, `/`
    included. Jinja's `urlencode` keeps `/`, so a record id `x/../other` would make a link
    the browser resolves to record `other`."""
    return quote(value, safe="")


def heat(count: int, peak: int) -> str:
    """A class from `heat-0` (none) to `heat-4` (the largest cell) for a confusion cell."""
    if count <= 0 or peak <= 0:
        return "heat-0"
    return f"heat-{min(4, 1 + int(3 * count / peak))}"


def environment() -> Environment:
    templates = {name: data.decode("utf-8")
                 for name, data in _read_folder("templates", (".html",)).items()}
    env = Environment(loader=DictLoader(templates), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters.update(when=when, percent=percent, score=score, segment=segment)
    env.globals.update(heat=heat, shown_path=shown_path, trusted_svg=_trusted_svg)
    return env


def _trusted_svg(svg: str | None) -> Markup | str:
    """SVG built by `engine.routing.graph_svg` / `charts`, which escape every label themselves."""
    return Markup(svg) if svg else ""


def render(env: Environment, name: str, context: dict[str, Any]) -> str:
    return env.get_template(name).render(**context)
