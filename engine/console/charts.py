"""SVG charts for the eval page: per-agent precision, recall and F1 as grouped bars, and the
headline rates as a bar each. Pure string building; every label is escaped here.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from engine.evaluation.metrics import AgentScore

BAR_H = 11.0
GROUP_GAP = 14.0
PLOT_W = 360.0
LABEL_CHAR_W = 8.14
"""Advance of one character of an agent's name (12 px semibold), in pixels."""
SERIES = (("precision", "series-precision"), ("recall", "series-recall"), ("f1", "series-f1"))


def _bar(x: float, y: float, value: float, css: str, text: str) -> str:
    width = max(value, 0.0) * PLOT_W
    return (f'<rect class="bar {css}" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
            f'height="{BAR_H:.1f}"><title>{escape(text)}</title></rect>'
            f'<text class="value" x="{x + width + 5:.1f}" y="{y + BAR_H - 1.5:.1f}">'
            f"{value:.0%}</text>")


def agent_scores(scores: Sequence[AgentScore]) -> str:
    """Grouped horizontal bars: one group per agent, one bar per metric."""
    label_w = max([len(s.agent) for s in scores] + [6]) * LABEL_CHAR_W + 24
    group_h = BAR_H * len(SERIES) + GROUP_GAP
    height = 34 + group_h * len(scores)
    parts = [_legend(label_w)]
    for n, score in enumerate(scores):
        top = 30 + n * group_h
        parts.append(f'<text class="axis-label" x="{label_w - 10:.1f}" '
                     f'y="{top + BAR_H * 2 - 1:.1f}">{escape(score.agent)}</text>')
        for k, (name, css) in enumerate(SERIES):
            value = float(getattr(score, name))
            text = f"{score.agent} {name} {value:.1%} ({score.support} rows)"
            parts.append(_bar(label_w, top + k * BAR_H, value, css, text))
    width = label_w + PLOT_W + 50
    grid = "".join(
        f'<line class="grid" x1="{label_w + PLOT_W * q:.1f}" y1="24" '
        f'x2="{label_w + PLOT_W * q:.1f}" y2="{height - 4:.1f}"/>'
        for q in (0.25, 0.5, 0.75, 1.0)
    )
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}">'
            f"<title>Precision, recall and F1 by agent</title>{grid}{''.join(parts)}</svg>")


def _legend(x: float) -> str:
    items = []
    for k, (name, css) in enumerate(SERIES):
        left = x + k * 100
        items.append(f'<rect class="bar {css}" x="{left:.1f}" y="6" width="12" height="12"/>'
                     f'<text class="legend" x="{left + 17:.1f}" y="16">{name}</text>')
    return "".join(items)
