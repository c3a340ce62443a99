"""Routing test cases: loading with located issues, running, and coverage."""

from __future__ import annotations

from pathlib import Path

from engine.routing import Router
from engine.routing.cases import load_cases, run_case
from engine.routing.coverage import coverage
from engine.routing.snapshot import Snapshot

GOOD = """\
cases:
  - name: stolen
    from: concierge
    text: my visa was stolen
    expect: {target: fraud, layer: keyword, rule: null}
  - name: self
    from: cards
    tool: handoff_cards
    text: x
    history: [[concierge, cards]]
    expect: {target: null, rejection: self_handoff}
  - name: wrong
    from: concierge
    text: stocks
    expect: {target: cards, layer: fallback}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_cases_run_and_report_each_mismatch(tmp_path: Path, bank: Snapshot) -> None:
    cases, issues = load_cases(_write(tmp_path, GOOD), bank)
    assert issues == []
    assert cases[1].history == (("concierge", "cards"),)
    results = [run_case(Router(bank), case) for case in cases]
    assert [result.passed for result in results] == [True, True, False]
    assert results[2].failures == (
        "expected target 'cards', got 'invest'", "expected layer 'fallback', got 'keyword'"
    )
    assert results[2].case.where.endswith("cases.yaml:12")


def test_coverage_counts_rules_triggers_and_agents(tmp_path: Path, bank: Snapshot) -> None:
    cases, _ = load_cases(_write(tmp_path, GOOD), bank)
    covered = coverage(bank, [run_case(Router(bank), case) for case in cases])
    summary = [item.summary() for item in covered]
    assert summary == [
        "rules 0/0",
        "triggers 1/3 (not exercised: handoff_fraud, handoff_invest)",
        "agents 2/4 (not exercised: concierge, cards)",
    ]


def test_unknown_names_are_located_with_suggestions(tmp_path: Path, bank: Snapshot) -> None:
    text = GOOD.replace("from: concierge\n    text: stocks", "from: concierg\n    text: stocks")
    text = text.replace("[[concierge, cards]]", "[[concierge, cardz]]")
    text += "  - name: stolen\n    from: fraud\n    text: x\n    capabilities: [flying]\n" \
        "    expect: {rule: nope}\n"
    cases, issues = load_cases(_write(tmp_path, text), bank)
    assert cases == ()
    found = [(i.line, i.col, i.json_path, i.code) for i in issues]
    assert found == [
        (10, 27, "$.cases[1].history[0][1]", "unknown-agent"),
        (13, 11, "$.cases[2].from", "unknown-agent"),
        (16, 11, "$.cases[3].name", "duplicate-case"),
        (19, 19, "$.cases[3].capabilities", "unknown-capability"),
        (20, 20, "$.cases[3].expect.rule", "unknown-rule"),
    ]
    assert issues[1].message.endswith("did you mean 'concierge'?")


def test_schema_errors_come_first_and_alone(tmp_path: Path, bank: Snapshot) -> None:
    cases, issues = load_cases(_write(tmp_path, "cases: []\n"), bank)
    assert cases == ()
    assert [(i.code, i.json_path) for i in issues] == [("schema", "$.cases")]
