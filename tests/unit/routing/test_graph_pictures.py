"""Topology pictures: the SVG that `handoff graph` prints and the console shows (every node
once, text escaped, safe under a strict CSP), the HTML page around it and the PNG of Pillow."""

from __future__ import annotations

import io
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest
from PIL import Image

from engine.loading.loader import load_config
from engine.routing import graph_svg
from engine.routing.graph import topology
from engine.routing.graph_png import png
from engine.routing.graph_svg import frame, html, picture, snapshot_layout, svg
from engine.routing.snapshot import Snapshot
from tests.conftest import CONFIGS
from tests.unit.routing.test_graph import _snapshot

Build = Callable[..., Snapshot]
SVG = "{http://www.w3.org/2000/svg}"
BANKING = CONFIGS / "banking"


def test_banking_draws_each_agent_rule_and_way_in_once() -> None:
    snapshot = load_config(BANKING)
    text = svg(snapshot)
    for name in snapshot.agents:
        assert text.count(f'data-agent="{name}"') == 1
    for rule in snapshot.rules:
        assert text.count(f'data-rule="{rule.id}"') == 1
    assert text.count('class="node node-rule"') == len(snapshot.rules) == 8
    assert text.count('data-entry="entry"') == text.count('data-fallback="fallback"') == 1
    assert 'class="node node-agent node-entry-agent" data-agent="concierge"' in text


def test_two_way_handoffs_are_one_line_with_two_heads() -> None:
    snapshot = load_config(BANKING)
    pairs = {(e.source, e.target) for e in topology(snapshot).edges if e.kind == "handoff"}
    both = {frozenset(p) for p in pairs if (p[1], p[0]) in pairs}
    lines = re.findall(r'<path class="edge edge-handoff"[^>]*>', svg(snapshot))
    assert len(lines) == len(pairs) - len(both)
    assert sum("marker-start=" in line for line in lines) == len(both)
    assert all("marker-end=" in line for line in lines)


def test_rule_sources_are_written_on_the_rule_not_drawn() -> None:
    text = svg(load_config(BANKING))
    assert "priority 85 · from claims" in text
    assert text.count('class="edge edge-rule"') == 8  # one per rule, to its target


def test_agents_named_like_the_ways_in_are_their_own_nodes(build: Build) -> None:
    snapshot = build([{"name": "entry", "peers": ["rule0"]}, {"name": "rule0", "peers": []}],
                     rules=[{"id": "r", "to": "rule0", "when": {"keywords": {"any": ["x"]}}}],
                     fallback="rule0")
    text = svg(snapshot)
    assert text.count('data-agent="entry"') == text.count('data-agent="rule0"') == 1
    assert text.count('data-entry="entry"') == text.count('data-rule="r"') == 1
    assert len(snapshot_layout(snapshot).boxes) == 5


def test_config_text_is_escaped(build: Build) -> None:
    markup = "<script>alert('x')</script> & \"quotes\""
    text = svg(build([{"name": "a<b&c", "description": markup, "peers": ["z"],
                       "handoff": {"trigger": "t"}}, {"name": "z", "peers": ["a<b&c"]}]))
    assert "<script>" not in text
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quotes&quot;" in text
    root = ET.fromstring(text)
    assert markup in [title.text for title in root.iter(f"{SVG}title")]
    assert "a<b&c" in [node.text for node in root.iter(f"{SVG}text")]


def test_the_svg_needs_no_inline_style_or_script(build: Build) -> None:
    """The console's CSP allows styles and scripts from its own files only: the picture's look
    is presentation attributes, never a style attribute, a <style> or a handler."""
    for snapshot in (load_config(BANKING), _snapshot(build)):
        root = ET.fromstring(svg(snapshot))
        for element in root.iter():
            assert element.tag not in (f"{SVG}style", f"{SVG}script", f"{SVG}foreignObject")
            assert not [name for name in element.attrib
                        if name == "style" or name.startswith("on") or "href" in name]


def test_disabled_agents_are_dashed(build: Build) -> None:
    root = ET.fromstring(svg(_snapshot(build)))
    dashed = [group for group in root.iter(f"{SVG}g")
              if group.find(f"{SVG}rect") is not None
              and group.find(f"{SVG}rect").get("stroke-dasharray")]  # type: ignore[union-attr]
    assert [group.find(f"{SVG}text").text  # type: ignore[union-attr]
            for group in dashed] == ["desk-b (disabled)"]
    assert dashed[0].get("class") == "node node-agent node-disabled"


def test_sets_too_large_to_draw_are_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = load_config(BANKING)
    assert picture(snapshot) is not None
    monkeypatch.setattr(graph_svg, "MAX_DRAWN_AGENTS", 5)
    assert picture(snapshot) is None
    page = html(snapshot)
    assert "<svg" not in page and "6 agents: more than 5 are listed" in page
    assert all(f"<tr><td>{name}</td>" in page for name in snapshot.agents)
    assert svg(snapshot).startswith("<svg ")  # asked for by name, it is drawn


def test_html_is_a_standalone_page_with_the_picture_inline(build: Build) -> None:
    page = html(_snapshot(build))
    assert page.startswith("<!doctype html>") and "<script" not in page
    assert "<svg " in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_png_is_the_same_picture_drawn_at_twice_the_size(build: Build) -> None:
    snapshot = _snapshot(build)
    width, height, _ = frame(snapshot_layout(snapshot))
    image = Image.open(io.BytesIO(png(snapshot)))
    assert image.format == "PNG"
    assert image.size == (math.ceil(width * 2), math.ceil(height * 2))
    colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 10  # drawn, not blank
    drawn = {colour for _, colour in colours}
    assert {(0x7b, 0x4f, 0xc9), (0x2f, 0x5b, 0xd3)} <= drawn  # rule and entry, as in the SVG
