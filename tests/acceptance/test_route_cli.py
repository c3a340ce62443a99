"""`handoff route`, `handoff test` and `handoff graph` in real subprocesses against a small
banking config set: decisions, --explain, json, case reports, diagrams and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.patience import HANG_S

pytestmark = pytest.mark.slow

MINI_BANK: dict[str, str] = {
    "bank/engine.yaml": """\
name: mini-bank
entry: concierge
policies: {max_bounces: 1}
include:
  agents: ["agents/*.yaml"]
  capabilities: ["capabilities.yaml"]
  routing: ["routing.yaml"]
""",
    "bank/agents/concierge.yaml": "name: concierge\ncapabilities: [general]\npeers: ['*']\n",
    "bank/agents/fraud.yaml": """\
name: fraud
capabilities: [fraud, cards]
handoff: {trigger: handoff_fraud}
peers: [concierge]
""",
    "bank/agents/cards.yaml": """\
name: cards
capabilities: [cards]
handoff: {trigger: handoff_cards}
peers: [concierge, fraud]
""",
    "bank/agents/invest.yaml": """\
name: invest
capabilities: [investing]
handoff: {trigger: handoff_invest}
peers: [concierge]
accepts: {from: [concierge]}
""",
    "bank/capabilities.yaml": """\
capabilities:
  general: {description: Anything else}
  fraud: {keywords: [stolen, unauthorized charge], synonyms: [scam]}
  cards: {keywords: [card, credit card], synonyms: [visa]}
  investing: {keywords: [stocks, portfolio]}
""",
    "bank/routing.yaml": """\
rules:
  - id: vip
    priority: 10
    when: {context: {tier: private}, from: [concierge]}
    to: invest
  - id: lost-card
    when: {keywords: {all: [lost, card]}}
    to: cards
fallback: concierge
""",
}


def handoff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=HANG_S
    )


@pytest.fixture
def bank(write_files: Callable[[dict[str, str]], Path]) -> str:
    return str(write_files(MINI_BANK) / "bank")


def test_keyword_route_with_explain(bank: str) -> None:
    done = handoff("route", bank, "--from", "concierge", "my visa was stolen", "--explain")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "fraud (keyword: cards, fraud)"
    assert "    1. fraud [keyword score=2] chosen" in lines
    assert "    2. cards [keyword score=1] dropped: outranked" in lines
    assert "    vip -> invest (priority 10): no match: context 'tier' is not 'private'" in lines
    assert "    lost-card -> cards (priority 0): no match: keywords.all: no 'lost', 'card' " \
        "in the text" in lines
    assert any(line.startswith("  config version: ") for line in lines)


def test_rule_route_as_json(bank: str) -> None:
    done = handoff("route", bank, "--from", "concierge", "--context", "tier=private",
                   "--format", "json", "hello")
    assert done.returncode == 0, done.stderr
    decision = json.loads(done.stdout)
    assert (decision["target"], decision["layer"], decision["rule"]) == ("invest", "rule", "vip")
    assert "rule_checks" not in decision
    assert decision["request"]["context"] == {"tier": "private"}


def test_several_tools_in_one_turn_follow_multiple_handoffs(bank: str) -> None:
    done = handoff("route", bank, "--from", "concierge", "--tool", "handoff_cards",
                   "--tool", "handoff_fraud", "--format", "json", "card trouble")
    assert done.returncode == 0, done.stderr
    decision = json.loads(done.stdout)
    assert decision["target"] == "cards"  # multiple_handoffs defaults to first
    assert [r["tool"] for r in decision["dropped_requests"]] == ["handoff_fraud"]


def test_a_refused_trigger_exits_1_with_its_reason(bank: str) -> None:
    done = handoff("route", bank, "--from", "fraud", "--tool", "handoff_invest", "buy stocks")
    assert done.returncode == 1
    assert done.stdout.startswith("refused (not_allowed): 'invest' is not among the peers")


def test_hops_feed_the_loop_guard(bank: str) -> None:
    done = handoff("route", bank, "--from", "concierge", "--tool", "handoff_cards",
                   "--hop", "cards:concierge", "--hop", "concierge:cards",
                   "--hop", "cards:concierge", "card")
    assert done.returncode == 1
    assert done.stdout.startswith("refused (loop)")


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "nobody", "x"], "--from 'nobody': unknown agent; known:"),
    (["--from", "concierge", "--tool", "nope", "x"], "--tool 'nope': unknown tool"),
    (["--from", "concierge", "--context", "novalue", "x"], "'novalue': expected KEY=VALUE"),
    (["--from", "concierge", "   "], "the task text is empty"),
    (["--from", "concierge", "--priority", "11", "x"], "--priority 11: must be between 1 and 10"),
    (["--from", "concierge", "--hop", "a-b", "x"], "--hop 'a-b': expected FROM:TO"),
    (["--from", "concierge", "--capability", "flying", "x"], "--capability 'flying': unknown"),
])
def test_bad_input_is_a_usage_error_without_traceback(
    bank: str, args: list[str], message: str
) -> None:
    done = handoff("route", bank, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_broken_config_exits_1_with_located_issues(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    broken = {**MINI_BANK, "bank/routing.yaml": "rules:\n  - id: x\n    when: {}\n    to: ghost\n"}
    folder = write_files(broken) / "bank"
    done = handoff("route", str(folder), "--from", "concierge", "x")
    assert done.returncode == 1
    assert "routing.yaml:4" in done.stderr
    assert "Traceback" not in done.stderr


CASES = """\
cases:
  - name: stolen visa goes to fraud
    from: concierge
    text: my visa was stolen
    expect: {target: fraud, layer: keyword}
  - name: private clients go to investments
    from: concierge
    text: hello
    context: {tier: private}
    expect: {target: invest, layer: rule, rule: vip}
  - name: fraud cannot reach invest
    from: fraud
    tool: handoff_invest
    text: buy stocks
    expect: {target: null, rejection: not_allowed}
"""


def test_cases_pass_with_a_coverage_report(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    root = write_files({**MINI_BANK, "cases.yaml": CASES})
    done = handoff("test", str(root / "bank"), str(root / "cases.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "PASS  stolen visa goes to fraud -> fraud (keyword: cards, fraud)"
    assert "3 case(s): 3 passed, 0 failed" in lines
    assert lines[-1] == (
        "coverage: rules 1/2 (not exercised: lost-card); "
        "triggers 1/3 (not exercised: handoff_cards, handoff_fraud); "
        "agents 2/4 (not exercised: cards, concierge)"
    )


def test_a_failing_case_exits_1_and_says_where(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    wrong = CASES + "  - name: lost card\n    from: concierge\n    text: lost my card\n" \
        "    expect: {target: fraud}\n"
    root = write_files({**MINI_BANK, "cases.yaml": wrong})
    done = handoff("test", str(root / "bank"), str(root / "cases.yaml"), "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert (report["passed"], report["failed"]) == (3, 1)
    failed = report["cases"][3]
    assert failed["where"].endswith("cases.yaml:16")
    assert failed["failures"] == ["expected target 'fraud', got 'cards'"]
    assert report["coverage"]["rules"] == {"declared": 2, "exercised": 2, "missing": []}


def test_a_cases_file_naming_unknown_agents_gets_located_errors(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    bad = "cases:\n  - name: a\n    from: concierg\n    text: x\n    tool: handoff_fraudd\n" \
        "    expect: {target: ghost, rule: nope}\n"
    root = write_files({**MINI_BANK, "cases.yaml": bad})
    done = handoff("test", str(root / "bank"), str(root / "cases.yaml"))
    assert done.returncode == 1
    assert "cases.yaml:3:11: error[unknown-agent] $.cases[0].from: 'concierg' is not a " \
        "declared agent of this config set; did you mean 'concierge'?" in done.stderr
    assert "cases.yaml:5:11: error[unknown-tool]" in done.stderr
    assert "cases.yaml:6:22: error[unknown-agent] $.cases[0].expect.target" in done.stderr
    assert "cases.yaml:6:35: error[unknown-rule]" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_malformed_cases_file_gets_schema_errors(
    write_files: Callable[[dict[str, str]], Path],
) -> None:
    bad = "cases:\n  - name: a\n    from: concierge\n    text: x\n    expect: {}\n    extra: 1\n"
    root = write_files({**MINI_BANK, "cases.yaml": bad})
    done = handoff("test", str(root / "bank"), str(root / "cases.yaml"))
    assert done.returncode == 1
    assert "cases.yaml:5:13: error[schema] $.cases[0].expect" in done.stderr
    assert "cases.yaml:6:5: error[unknown-key] $.cases[0].extra" in done.stderr


def test_graph_as_mermaid_and_dot(bank: str) -> None:
    mermaid = handoff("graph", bank, "--format", "mermaid-raw")
    assert mermaid.returncode == 0, mermaid.stderr
    lines = mermaid.stdout.splitlines()
    assert lines[0] == "flowchart LR"
    ids = {line.split('["')[1].rstrip('"]'): line.split("[")[0].strip()
           for line in lines if '["' in line}
    assert f'  {ids["concierge"]} -->|"handoff_invest"| {ids["invest"]}' in lines
    assert f'  {ids["fraud"]} -->|"handoff_invest"| {ids["invest"]}' not in lines
    dot = handoff("graph", bank, "--format", "dot")
    assert dot.returncode == 0, dot.stderr
    assert dot.stdout.startswith('digraph "mini-bank" {')
    assert '  "rule0" -> "invest" [style=dotted];' in dot.stdout
    assert '  "fallback" -> "concierge" [style=dashed, label="fallback"];' in dot.stdout


BANKING = str(Path(__file__).resolve().parents[2] / "configs" / "banking")


def test_explain_shows_normalization_and_the_examples_layer() -> None:
    text = "uh yeah so my card um i think somebody stole it"
    done = handoff("route", BANKING, "--from", "concierge", text, "--explain")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("fraud_agent (examples: probability ")
    assert "normalized:   'yeah so my card i think somebodi stole it' (nfkc, casefold" \
        in done.stdout
    assert "deciding terms: 'stole'" in done.stdout
    assert "nearest: fraud_agent" in done.stdout
    document = json.loads(handoff("route", BANKING, "--from", "concierge", text, "--explain",
                                  "--format", "json").stdout)
    assert document["layer"] == "example"
    assert document["examples"]["agent"] == "fraud_agent"
    assert document["examples"]["nearest"][0]["agent"] == "fraud_agent"
    assert document["normalization"]["trace"][0] == {"step": "words", "text": text}
    assert "stemming:english" in document["normalization"]["steps"]


def test_route_reads_the_task_text_from_the_standard_input() -> None:
    done = subprocess.run([sys.executable, "-m", "engine", "route", "configs/banking", "--from",
                           "concierge", "-"], input="My card was stolen last night\n",
                          capture_output=True, text=True, timeout=HANG_S, check=False, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("fraud_agent (rule lost-or-stolen-card)")


@pytest.mark.parametrize("how", ["arguments", "stdin"])
def test_a_task_text_over_the_cap_is_refused_however_it_is_given(how: str) -> None:
    words = ["card"] * 20_000  # 99,999 characters once joined
    args = ["-"] if how == "stdin" else words
    done = subprocess.run([sys.executable, "-m", "engine", "route", "configs/banking", "--from",
                           "concierge", *args], input=" ".join(words) if how == "stdin" else "",
                          capture_output=True, text=True, timeout=HANG_S, check=False, cwd=REPO)
    assert done.returncode == 2 and done.stdout == ""
    where = "on the standard input" if how == "stdin" else "given as arguments"
    assert f"the task text {where} is over 65536 chars" in done.stderr
