"""The "Operating it" page of the docs stays true: every metric its dashboard queries and alert
rules use is one the engine exports, and the alert rules are a well-formed rule file."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml import YAML

from engine.metrics import catalog

PAGE = Path(__file__).resolve().parents[3] / "docs" / "operating.md"


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", page_text(), flags=re.DOTALL)


def exported() -> set[str]:
    """Every series name the engine exports to Prometheus."""
    names = set()
    for metric in (*catalog.EVENTS, *catalog.COLLECTED):
        name = metric.prometheus
        if metric.kind == "counter":
            names.add(f"{name}_total")
        elif metric.kind == "histogram":
            names.update(f"{name}_{part}" for part in ("bucket", "sum", "count"))
        else:
            names.add(name)
    return names


def test_dashboard_and_alerts_only_use_exported_metrics() -> None:
    queries = "\n".join(blocks("promql") + blocks("yaml"))
    used = set(re.findall(r"\b(handoffs?_[a-z_]+)\b", queries))
    assert used - exported() == set()
    assert {"handoffs_total", "handoff_config_last_reload_successful",
            "handoff_route_duration_seconds_bucket"} <= used


def test_alert_rules_cover_reload_failures_loop_refusals_and_a_silent_engine() -> None:
    (rules,) = [block for block in blocks("yaml") if "groups:" in block]
    document = YAML(typ="safe").load(rules)
    alerts = {rule["alert"]: rule["expr"] for group in document["groups"]
              for rule in group["rules"]}
    assert "handoff_config_last_reload_successful == 0" in alerts["HandoffConfigReloadRejected"]
    assert 'reason="loop"' in alerts["HandoffLoopGuardRefusals"]
    assert 'absent(up{job="handoff-engine"})' in alerts["HandoffEngineStoppedReporting"]
