"""The topology picture: every node once, edges merged both ways, text escaped, big sets listed."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from engine.config.loader import load_config
from engine.config.snapshot import Snapshot
from engine.console import svg
from engine.routing.graph import topology

from .conftest import BANKING, agent_file


def test_banking_draws_each_agent_rule_and_way_in_once() -> None:
    snapshot = load_config(BANKING)
    picture = svg.render(snapshot)
    assert picture is not None
    for name in snapshot.agents:
        assert picture.count(f'data-agent="{name}"') == 1
    assert picture.count('class="node node-rule"') == len(snapshot.rules) == 8
    assert picture.count('data-entry="entry"') == picture.count('data-fallback="fallback"') == 1
    assert 'class="node node-agent node-entry-agent"' in picture  # concierge, the entry


def test_two_way_handoffs_are_one_line_with_two_heads() -> None:
    snapshot = load_config(BANKING)
    picture = svg.render(snapshot) or ""
    pairs = {(e.source, e.target) for e in topology(snapshot).edges if e.kind == "handoff"}
    both = {frozenset(p) for p in pairs if (p[1], p[0]) in pairs}
    lines = re.findall(r'<path class="edge edge-handoff"[^>]*>', picture)
    assert len(lines) == len(pairs) - len(both)
    assert sum('marker-start=' in line for line in lines) == len(both)


def test_rule_sources_are_written_on_the_rule_not_drawn() -> None:
    picture = svg.render(load_config(BANKING)) or ""
    assert "priority 85 · from claims" in picture
    assert picture.count('class="edge edge-rule"') == 8  # one per rule, to its target


def test_agents_named_like_the_ways_in_are_their_own_nodes(
    make_set: Callable[..., Snapshot],
) -> None:
    snapshot = make_set(
        {"entry": agent_file("entry", peers="[rule0]"), "rule0": agent_file("rule0")},
        entry="entry",
        routing="rules:\n  - {id: r, to: rule0, when: {keywords: {any: [x]}}}\nfallback: rule0\n",
    )
    picture = svg.render(snapshot) or ""
    assert picture.count('data-agent="entry"') == picture.count('data-agent="rule0"') == 1
    assert picture.count('data-entry="entry"') == 1
    assert picture.count('data-rule="rule0"') == 1  # the rule node of rule `r`


def test_config_text_is_escaped(make_set: Callable[..., Snapshot]) -> None:
    markup = "<script>alert('x')</script> & \"quotes\""
    snapshot = make_set(
        {"a": agent_file("a", extra=f"description: '{markup.replace(chr(39), chr(39) * 2)}'\n")},
        entry="a",
    )
    picture = svg.render(snapshot) or ""
    assert "<script>" not in picture
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quotes&quot;" in picture


def test_sets_too_large_to_draw_are_not_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(svg, "MAX_DRAWN_AGENTS", 5)
    assert svg.render(load_config(BANKING)) is None
