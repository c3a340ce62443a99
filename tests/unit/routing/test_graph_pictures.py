"""Topology pictures: the shared layout, the SVG and HTML text, and the PNG drawn with Pillow."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable

from PIL import Image

from engine.config.snapshot import Snapshot
from engine.routing.graph import topology
from engine.routing.graph_layout import layout
from engine.routing.graph_png import png
from engine.routing.graph_svg import html, snapshot_layout, svg
from tests.unit.routing.test_graph import _snapshot

Build = Callable[..., Snapshot]
SVG = "{http://www.w3.org/2000/svg}"


def test_layout_places_every_node_once_without_overlaps(build: Build) -> None:
    drawn = snapshot_layout(_snapshot(build))
    assert sorted(box.id for box in drawn.boxes) == sorted(
        ["entry", "fallback", "hub", "desk.a", "desk-b", "rule0"])
    for a in drawn.boxes:
        assert a.x >= 0 and a.x + a.width <= drawn.width and a.y + a.height <= drawn.height
        for b in drawn.boxes:
            if a.id < b.id:
                apart = (a.x + a.width <= b.x or b.x + b.width <= a.x
                         or a.y + a.height <= b.y or b.y + b.height <= a.y)
                assert apart, (a.id, b.id)


def test_columns_run_from_the_entry_to_the_agents_it_reaches(build: Build) -> None:
    boxes = {box.id: box for box in snapshot_layout(_snapshot(build)).boxes}
    assert boxes["entry"].x < boxes["hub"].x < boxes["rule0"].x < boxes["desk.a"].x
    assert boxes["hub"].detail == "" and boxes["desk.a"].detail == "to_a"
    assert boxes["rule0"].label == "rule r1" and boxes["rule0"].detail == "priority 3, from hub"
    assert boxes["desk-b"].disabled


def test_a_rules_from_agents_are_text_not_arrows(build: Build) -> None:
    links = {(link.source, link.target) for link in snapshot_layout(_snapshot(build)).links}
    assert ("rule0", "desk.a") in links and ("hub", "rule0") not in links
    plain = layout(topology(_snapshot(build)))
    assert ("hub", "rule0") in {(link.source, link.target) for link in plain.links}


def test_svg_is_well_formed_and_escapes_names(build: Build) -> None:
    agents = [{"name": "a<b&c", "handoff": {"trigger": "t"}, "peers": ["z"]},
              {"name": "z", "peers": ["a<b&c"]}]
    text = svg(build(agents))
    root = ET.fromstring(text)
    labels = [node.text for node in root.iter(f"{SVG}text")]
    assert "a<b&c" in labels and "z" in labels
    assert len(list(root.iter(f"{SVG}path"))) >= 3  # the arrows (and marker heads)


def test_disabled_agents_are_dashed_in_svg(build: Build) -> None:
    root = ET.fromstring(svg(_snapshot(build)))
    dashed = [group for group in root.iter(f"{SVG}g")
              if group.find(f"{SVG}rect") is not None
              and group.find(f"{SVG}rect").get("stroke-dasharray")]  # type: ignore[union-attr]
    assert [group.find(f"{SVG}text").text  # type: ignore[union-attr]
                                     for group in dashed] == ["desk-b (disabled)"]


def test_html_is_a_standalone_page_with_the_picture_inline(build: Build) -> None:
    page = html(_snapshot(build))
    assert page.startswith("<!doctype html>") and "<script" not in page
    assert "<svg " in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")


def test_png_is_the_same_layout_drawn_at_twice_the_size(build: Build) -> None:
    snapshot = _snapshot(build)
    drawn = snapshot_layout(snapshot)
    image = Image.open(io.BytesIO(png(snapshot)))
    assert image.format == "PNG"
    assert image.size == (math.ceil(drawn.width * 2), math.ceil(drawn.height * 2))
    colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 10  # drawn, not blank
