"""Printing an evaluation as text, JSON or GitHub workflow annotations, and checking it
against CI thresholds.

Pure formatting of an `Evaluation`; nothing here routes or reads files.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from engine.evaluation.run import Evaluation
from engine.evaluation.sweep import Point, Thresholds
from engine.issues import Issue

_TOP_TRIGGERS = 15


@dataclass(frozen=True, slots=True)
class Threshold:
    """A CI gate: `what` (`accuracy`, `false_transfers` or `recall:AGENT`) against `limit`."""

    what: str
    limit: float
    value: float

    @property
    def passed(self) -> bool:
        if self.what == "false_transfers":
            return self.value <= self.limit
        return self.value >= self.limit

    def __str__(self) -> str:
        sign = "<=" if self.what == "false_transfers" else ">="
        verdict = "ok" if self.passed else "FAILED"
        return f"{self.what} {self.value:.1%} {sign} {self.limit:.1%}: {verdict}"


@dataclass(frozen=True, slots=True)
class Report:
    corpus: str
    evaluation: Evaluation
    issues: tuple[Issue, ...]
    thresholds: tuple[Threshold, ...]
    bad_rows: int = 0
    curve: tuple[Point, ...] = ()
    """The examples layer's threshold curve, when asked for (`--curve`)."""
    examples: Thresholds | None = None
    """The examples layer's settings the rows were routed with (None: the set has none)."""


def summary(evaluation: Evaluation) -> dict[str, Any]:
    tally = evaluation.tally
    return {
        "rows": tally.rows,
        "accuracy": round(tally.accuracy, 4),
        "specialist_recall": round(tally.transfer_recall, 4),
        "transfer_rows": tally.transfer_rows,
        "false_transfer_rate": round(tally.false_transfer_rate, 4),
        "false_transfers": tally.false_transfers,
        "macro_f1": round(tally.macro_f1, 4),
        "stay_rows": tally.stay_rows,
        "no_route_rate": round(tally.no_route_rate, 4),
        "latency_us": {"p50": round(tally.percentile(0.5), 2),
                       "p99": round(tally.percentile(0.99), 2)},
    }


def _triggers(evaluation: Evaluation) -> list[dict[str, Any]]:
    ranked = sorted(evaluation.wrong.items(), key=lambda item: (-item[1], item[0]))
    return [
        {"layer": layer, "what": what, "target": target, "wrong": count,
         "false": evaluation.false[layer, what, target]}
        for (layer, what, target), count in ranked[:_TOP_TRIGGERS]
    ]


def render_json(report: Report) -> str:
    evaluation = report.evaluation
    document = {
        "corpus": report.corpus,
        **summary(evaluation),
        "agents": [score.to_dict() for score in evaluation.tally.scores()],
        "confusion": [
            {"expected": truth, "routed": guess, "rows": count}
            for (truth, guess), count in sorted(evaluation.tally.confusion.items())
        ],
        "wrong_transfers_by_trigger": _triggers(evaluation),
        "worst_misses": [miss.to_dict() for miss in evaluation.misses()],
        "bad_rows": report.bad_rows,
        "errors": [issue.to_dict() for issue in report.issues],
        "thresholds": [{"what": t.what, "limit": t.limit, "value": round(t.value, 4),
                        "passed": t.passed} for t in report.thresholds],
    }
    if report.examples is not None:
        document["examples_layer"] = asdict(report.examples)
    if report.curve:
        document["curve"] = [{key: round(value, 4) for key, value in asdict(point).items()}
                             for point in report.curve]
    return json.dumps(document, indent=2, ensure_ascii=False)


def _confusion(evaluation: Evaluation) -> list[str]:
    tally = evaluation.tally
    names = [score.agent for score in tally.scores()]
    width = max([len(name) for name in names] + [8])
    lines = ["confusion (rows: expected agent; columns: routed to, or the sender when not routed):"]
    lines.append(" " * (width + 2) + " ".join(f"{n[:10]:>10}" for n in names))
    for truth in names:
        counts = " ".join(f"{tally.confusion[truth, guess]:>10}" for guess in names)
        lines.append(f"  {truth:<{width}}{counts}")
    return lines


def _headline(report: Report) -> list[str]:
    tally = report.evaluation.tally
    bad = f"; {report.bad_rows} bad row(s) skipped" if report.bad_rows else ""
    return [
        f"corpus: {report.corpus} ({tally.rows} rows{bad})",
        f"accuracy:          {tally.accuracy:6.1%}  ({tally.correct}/{tally.rows})",
        f"specialist recall: {tally.transfer_recall:6.1%}  ({tally.transfers_right}/"
        f"{tally.transfer_rows} rows that belong to an agent other than their sender)",
        f"false transfers:   {tally.false_transfer_rate:6.1%}  ({tally.false_transfers}/"
        f"{tally.stay_rows} rows that should stay with their sender, routed away)",
        f"no route:          {tally.no_route_rate:6.1%}  ({tally.no_route} rows)",
        f"macro-F1:          {tally.macro_f1:6.1%}  (the mean of the agents' F1)",
        f"latency:           p50 {tally.percentile(0.5):.1f} us, "
        f"p99 {tally.percentile(0.99):.1f} us",
        *_settings(report.examples),
    ]


def _settings(examples: Thresholds | None) -> list[str]:
    """The examples layer's settings in one line (none when the set has no examples)."""
    if examples is None:
        return []
    return [f"examples layer:    min_score {examples.min_score:g}, margin {examples.margin:g}, "
            f"temperature {examples.temperature:g}, unknown_words {examples.unknown_words:g}"]


def render_text(report: Report) -> str:
    evaluation = report.evaluation
    lines = _headline(report)
    lines += ["", f"{'agent':<24}{'rows':>6}{'precision':>11}{'recall':>8}{'f1':>8}"]
    for score in evaluation.tally.scores():
        lines.append(f"{score.agent:<24}{score.support:>6}{score.precision:>11.1%}"
                     f"{score.recall:>8.1%}{score.f1:>8.1%}")
    lines += ["", *_confusion(evaluation)]
    triggers = _triggers(evaluation)
    if triggers:
        lines += ["", "wrong transfers by what sent them (false: rows that should have stayed):"]
        for item in triggers:
            lines.append(f"  {item['wrong']:>5} (false {item['false']:>4})  {item['layer']:<8}"
                         f" {item['what']!r} -> {item['target']}")
    misses = evaluation.misses()
    if misses:
        lines += ["", "worst misses:"]
        for miss in misses:
            lines.append(f"  line {miss.line}: {miss.text!r}: expected {miss.expected}, "
                         f"got {miss.got}")
            lines.append(f"      {miss.why}")
    lines += _curve(report.curve)
    lines += [f"thresholds: {threshold}" for threshold in report.thresholds]
    return "\n".join(lines)


def render_findings(report: Report) -> str:
    """Only what failed (`-q`): each threshold missed, one line each; "" when all held."""
    return "\n".join(f"thresholds: {threshold}" for threshold in report.thresholds
                     if not threshold.passed)


def _curve(points: tuple[Point, ...]) -> list[str]:
    if not points:
        return []
    lines = ["", "examples layer answering from min_score (the set's margin, temperature and "
             "unknown_words):",
             f"  {'min_score':>9}{'accuracy':>10}{'recall':>9}{'false':>8}"]
    lines += [f"  {p.min_score:>9.2f}{p.accuracy:>10.1%}{p.specialist_recall:>9.1%}"
              f"{p.false_transfer_rate:>8.1%}" for p in points]
    return lines


def render_github(report: Report) -> str:
    """One notice with the summary, an error annotation per failed threshold and bad row."""
    data = summary(report.evaluation)
    text = (f"accuracy {data['accuracy']:.1%}, specialist recall {data['specialist_recall']:.1%}"
            f", false transfers {data['false_transfer_rate']:.1%}, no route "
            f"{data['no_route_rate']:.1%} over {data['rows']} rows")
    lines = [f"::notice file={report.corpus},title=handoff eval::{text}"]
    lines += [f"::error file={report.corpus},title=threshold::{t}"
              for t in report.thresholds if not t.passed]
    lines += [f"::error file={i.file},line={i.line},title={i.code}::{i.message}"
              for i in report.issues]
    return "\n".join(lines)


RENDER_BY_NAME: Mapping[str, Callable[[Report], str]] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
}
