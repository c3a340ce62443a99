"""The agent topology as a PNG picture: the SVG renderer's layout, look and legend drawn with
Pillow (the optional `graph` extra, a wheel with its own font engine: no system package).
Pure drawing: it never writes files.
"""

from __future__ import annotations

import io
import itertools
import math
from typing import Any

from engine.errors import UsageError
from engine.routing.graph_layout import Box, Layout, Point
from engine.routing.graph_svg import (
    BACKDROP,
    INK,
    LINE,
    MUTED,
    SAMPLE_W,
    frame,
    look,
    snapshot_layout,
)
from engine.routing.snapshot import Snapshot

SCALE = 2  # drawn at twice the layout size, so text stays sharp on high-density screens
STEPS = 24  # line pieces per cubic segment
HEAD = 9.0  # arrowhead length, as in the SVG's markers


def _pillow() -> tuple[Any, Any, Any]:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise UsageError('PNG output needs Pillow: pip install "handoff-engine[graph]"') from None
    return Image, ImageDraw, ImageFont


def _curve(points: tuple[Point, ...]) -> list[Point]:
    """The cubic segments of a link as a polyline, in picture pixels."""
    line = [(points[0][0] * SCALE, points[0][1] * SCALE)]
    for n in range(0, len(points) - 1, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[n:n + 4]
        for step in range(1, STEPS + 1):
            t = step / STEPS
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            line.append(((a * x0 + b * x1 + c * x2 + d * x3) * SCALE,
                         (a * y0 + b * y1 + c * y2 + d * y3) * SCALE))
    return line


def _stroke(draw: Any, line: list[Point], kind: str) -> None:
    """A polyline in an edge kind's colour, width and dash pattern."""
    colour, dash, width = LINE[kind]
    pattern = [float(n) * SCALE for n in dash.split()] or [math.inf]
    pieces, left, on = itertools.cycle(pattern), pattern[0], True
    next(pieces)
    for (x1, y1), (x2, y2) in itertools.pairwise(line):
        length, done = math.hypot(x2 - x1, y2 - y1), 0.0
        while done < length:
            run = min(left, length - done)
            if on:
                start, end = done / length, (done + run) / length
                draw.line([(x1 + (x2 - x1) * start, y1 + (y2 - y1) * start),
                           (x1 + (x2 - x1) * end, y1 + (y2 - y1) * end)], fill=colour,
                          width=round(width * SCALE))
            done, left = done + run, left - run
            if left <= 0:
                left, on = next(pieces), not on


def _head(draw: Any, tip: Point, before: Point, colour: str) -> None:
    angle = math.atan2(tip[1] - before[1], tip[0] - before[0])
    size = HEAD * SCALE
    draw.polygon([tip] + [(tip[0] - size * math.cos(angle + turn),
                           tip[1] - size * math.sin(angle + turn)) for turn in (0.45, -0.45)],
                 fill=colour)


def _box(draw: Any, box: Box, fonts: tuple[Any, Any]) -> None:
    node = box.node
    fill, stroke, width = look(node)
    corners = [box.x * SCALE, box.y * SCALE, (box.x + box.width) * SCALE,
               (box.y + box.height) * SCALE]
    radius = box.height / 2 if node.kind in ("entry", "fallback") else 6
    draw.rounded_rectangle(corners, radius=radius * SCALE, fill=fill, outline=stroke,
                           width=round(width * SCALE))
    middle = (box.x + box.width / 2) * SCALE
    ink = "#ffffff" if node.kind == "entry" else INK
    top = box.middle - 7 if node.detail else box.middle
    draw.text((middle, top * SCALE), node.title, fill=ink, font=fonts[0], anchor="mm")
    if node.detail:
        draw.text((middle, (box.middle + 8) * SCALE), node.detail, fill=MUTED, font=fonts[1],
                  anchor="mm")


def render_png(drawn: Layout) -> bytes:
    """PNG bytes of a layout: the same picture as the SVG renderer's, at twice the size."""
    image_module, draw_module, font_module = _pillow()
    width, height, keys = frame(drawn)
    image = image_module.new("RGB", (math.ceil(width * SCALE), math.ceil(height * SCALE)),
                             BACKDROP)
    draw = draw_module.Draw(image)
    fonts = (font_module.load_default(size=13 * SCALE), font_module.load_default(size=11 * SCALE))
    for link in drawn.links:
        line = _curve(link.points)
        _stroke(draw, line, link.edge.kind)
        _head(draw, line[-1], line[-2], LINE[link.edge.kind][0])
        if link.both:
            _head(draw, line[0], line[1], LINE[link.edge.kind][0])
    for box in drawn.boxes:
        _box(draw, box, fonts)
    for key in keys:
        _stroke(draw, [(key.x * SCALE, key.y * SCALE), ((key.x + SAMPLE_W) * SCALE,
                                                       key.y * SCALE)], key.kind)
        draw.text(((key.x + SAMPLE_W + 6) * SCALE, key.y * SCALE), key.text, fill=MUTED,
                  font=fonts[1], anchor="lm")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def png(snapshot: Snapshot) -> bytes:
    """The snapshot's topology as PNG bytes."""
    return render_png(snapshot_layout(snapshot))
