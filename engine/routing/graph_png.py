"""The agent topology as a PNG picture, drawn with Pillow from the shared layout.

Needs the optional `graph` extra (`pip install "handoff-engine[graph]"`: Pillow, a wheel with
its own font engine, so no system package or network). Pure drawing: it never writes files.
"""

from __future__ import annotations

import io
import itertools
import math
from typing import Any

from engine.config.snapshot import Snapshot
from engine.errors import UsageError
from engine.routing.graph_layout import Box, Layout, Link
from engine.routing.graph_svg import EDGE, STYLE, snapshot_layout

SCALE = 2  # drawn at twice the layout size, so text stays sharp on high-density screens
STEPS = 24  # line segments per curve


def _pillow() -> tuple[Any, Any, Any]:
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise UsageError('PNG output needs Pillow: pip install "handoff-engine[graph]"') from None
    return Image, ImageDraw, ImageFont


def _bezier(points: tuple[tuple[float, float], ...]) -> list[tuple[float, float]]:
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    curve = []
    for step in range(STEPS + 1):
        t = step / STEPS
        a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
        curve.append(((a * x0 + b * x1 + c * x2 + d * x3) * SCALE,
                      (a * y0 + b * y1 + c * y2 + d * y3) * SCALE))
    return curve


def _link(draw: Any, link: Link) -> None:
    colour, dash = EDGE[link.kind]
    curve = _bezier(link.points)
    width = 4 if link.kind == "entry" else 2
    for n, (start, end) in enumerate(itertools.pairwise(curve)):
        if not dash or n % 2 == 0:
            draw.line([start, end], fill=colour, width=width)
    (px, py), (x, y) = curve[-2], curve[-1]
    angle = math.atan2(y - py, x - px)
    size = 7 * SCALE
    head = [(x, y)] + [(x - size * math.cos(angle + turn), y - size * math.sin(angle + turn))
                       for turn in (0.45, -0.45)]
    draw.polygon(head, fill=colour)


def _box(draw: Any, box: Box, fonts: tuple[Any, Any]) -> None:
    fill, stroke = STYLE[box.kind]
    corners = [box.x * SCALE, box.y * SCALE, (box.x + box.width) * SCALE,
               (box.y + box.height) * SCALE]
    radius = box.height / 2 if box.kind in ("entry", "fallback") else 6
    draw.rounded_rectangle(corners, radius=radius * SCALE, fill=fill, outline=stroke,
                           width=SCALE)
    middle = (box.x + box.width / 2) * SCALE
    label = box.label + (" (disabled)" if box.disabled else "")
    if box.detail:
        draw.text((middle, (box.y + 16) * SCALE), label, fill="#000", font=fonts[0], anchor="mm")
        draw.text((middle, (box.y + box.height - 14) * SCALE), box.detail, fill="#555",
                  font=fonts[1], anchor="mm")
    else:
        draw.text((middle, box.center_y * SCALE), label, fill="#000", font=fonts[0], anchor="mm")


def render_png(drawn: Layout) -> bytes:
    """PNG bytes of a layout (the same picture as the SVG renderer's)."""
    image_module, draw_module, font_module = _pillow()
    size = (math.ceil(drawn.width * SCALE), math.ceil(drawn.height * SCALE))
    image = image_module.new("RGB", size, "#ffffff")
    draw = draw_module.Draw(image)
    fonts = (font_module.load_default(size=12 * SCALE), font_module.load_default(size=10 * SCALE))
    for link in drawn.links:
        _link(draw, link)
    for box in drawn.boxes:
        _box(draw, box, fonts)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def png(snapshot: Snapshot) -> bytes:
    """The snapshot's topology as PNG bytes."""
    return render_png(snapshot_layout(snapshot))
