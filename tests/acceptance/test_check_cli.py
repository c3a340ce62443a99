"""`handoff check` as users run it: the real console script in a subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import CONFIGS, FIXTURES, REPO
from tests.patience import HANG_S

HANDOFF = str(Path(sys.executable).parent / "handoff")
INVALID = FIXTURES / "configs" / "invalid"
pytestmark = pytest.mark.slow


def handoff(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HANDOFF, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=HANG_S
    )


def assert_no_traceback(run: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in run.stdout + run.stderr


def test_shipped_configs_pass_strict() -> None:
    run = handoff("configs/", "--strict")
    expected = (0, "checked 2 sets, 15 files: ok", "")
    assert (run.returncode, run.stdout.strip(), run.stderr) == expected


def test_every_invalid_case_is_reported_in_one_run() -> None:
    """One run over the whole corpus: exit 1, every expected issue located, no traceback."""
    run = handoff(str(INVALID.relative_to(REPO)), "--format", "json", "--max-bytes", "4096")
    assert run.returncode == 1
    assert_no_traceback(run)
    reported = {
        (issue["code"], issue["file"], issue["line"]) for issue in json.loads(run.stdout)["issues"]
    }
    yaml = YAML(typ="safe", pure=True)
    for case in sorted(path for path in INVALID.iterdir() if path.is_dir()):
        expectation = yaml.load(case / "expect.yaml")
        if not (case / "engine.yaml").exists() or "max_nodes" in expectation:
            continue  # no root: only an issue when passed directly; own node cap: unit corpus
        for item in expectation["issues"]:
            file = (case / item["file"]).relative_to(REPO).as_posix()
            assert (item["code"], file, item["line"]) in reported, (case.name, item)


def test_text_format_is_file_line_col_severity_code_path_message(tmp_path: Path) -> None:
    shutil.copytree(CONFIGS / "banking", tmp_path / "banking")
    routing = tmp_path / "banking" / "routing.yaml"
    routing.write_text(routing.read_text("utf-8").replace("to: claims", "to: fraud"), "utf-8")
    run = handoff("banking", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "banking/routing.yaml:56:9: error[unknown-agent] $.rules[6].to: "
        "'fraud' is not a declared agent; did you mean 'fraud_agent'?",
        "checked 1 set, 9 files: 1 error(s), 0 warning(s)",
    ]


def test_github_format_emits_workflow_annotations() -> None:
    run = handoff(str((INVALID / "unknown-key").relative_to(REPO)), "--format", "github")
    assert run.returncode == 1
    assert run.stdout.strip() == (
        "::error file=tests/fixtures/configs/invalid/unknown-key/agents/b.yaml,line=6,col=1,"
        "title=unknown-key::$.peer: unknown key 'peer'; did you mean 'peers'?"
    )


def test_warnings_fail_only_with_strict() -> None:
    case = str((INVALID / "topology-warnings").relative_to(REPO))
    relaxed, strict = handoff(case), handoff(case, "--strict")
    assert relaxed.returncode == 0 and strict.returncode == 1
    assert relaxed.stdout == strict.stdout
    assert "0 error(s), 3 warning(s)" in strict.stdout


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["configs", "--format", "xml"],
        ["configs", "--max-bytes", "lots"],
        ["configs", "--max-bytes", "0"],
        ["configs", "--bogus"],
    ],
    ids=["no-path", "bad-format", "bad-max-bytes", "zero-max-bytes", "unknown-option"],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    run = handoff(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "usage:" in run.stderr
    assert_no_traceback(run)


def test_missing_path_and_folder_without_config_exit_1(tmp_path: Path) -> None:
    run = handoff(str(tmp_path / "nope"), str(tmp_path))
    assert run.returncode == 1
    assert_no_traceback(run)
    assert f"{tmp_path / 'nope'}: error[file-not-found]" in run.stdout
    assert f"{tmp_path}: error[no-config]" in run.stdout


def test_max_bytes_option_applies_to_every_file() -> None:
    run = handoff("configs/banking", "--max-bytes", "600", "--format", "json")
    assert run.returncode == 1
    codes = {issue["code"] for issue in json.loads(run.stdout)["issues"]}
    assert codes == {"file-too-large"}


def test_python_module_entry_point_matches_the_script() -> None:
    module = subprocess.run(
        [sys.executable, "-m", "engine", "check", "configs", "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert module.returncode == 0
    assert json.loads(module.stdout) == {"errors": 0, "warnings": 0, "issues": []}


def test_a_typo_in_engine_yaml_hides_no_other_file(tmp_path: Path) -> None:
    """Each file's own schema and the cross-file checks: a rule to an unknown agent is
    reported beside the root's typo, each located."""
    shutil.copytree(CONFIGS / "banking", tmp_path / "banking")
    root = tmp_path / "banking" / "engine.yaml"
    agent = tmp_path / "banking" / "agents" / "claims.yaml"
    routing = tmp_path / "banking" / "routing.yaml"
    root.write_text(root.read_text("utf-8").replace("policies:", "polices:"), "utf-8")
    agent.write_text(agent.read_text("utf-8").replace("peers:", "peer:"), "utf-8")
    routing.write_text(routing.read_text("utf-8").replace("to: claims", "to: fraud"), "utf-8")
    run = handoff("banking", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "banking/agents/claims.yaml:8:1: error[unknown-key] $.peer: unknown key 'peer'; "
        "did you mean 'peers'?",
        "banking/engine.yaml:9:1: error[unknown-key] $.polices: unknown key 'polices'; "
        "did you mean 'policies'?",
        "banking/routing.yaml:56:9: error[unknown-agent] $.rules[6].to: "
        "'fraud' is not a declared agent; did you mean 'fraud_agent'?",
        "checked 1 set, 9 files: 3 error(s), 0 warning(s)",
    ]


def test_the_sets_own_cases_file_is_checked_with_the_set(tmp_path: Path) -> None:
    shutil.copytree(CONFIGS / "banking", tmp_path / "banking")
    cases = tmp_path / "banking" / "cases.yaml"
    text = cases.read_text("utf-8")
    cases.write_text(text.replace("target: card_recommendation", "target: card_recomendation", 1),
                     "utf-8")
    run = handoff("banking", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        "banking/cases.yaml:15:22: error[unknown-agent] $.cases[1].expect.target: "
        "'card_recomendation' is not a declared agent of this config set; "
        "did you mean 'card_recommendation'?",
        "checked 1 set, 9 files: 1 error(s), 0 warning(s)",
    ]
    cases.write_text(text.replace("cases:", "case:", 1), "utf-8")  # no longer a cases list
    run = handoff("banking/engine.yaml", cwd=tmp_path)
    assert run.returncode == 1
    assert "banking/cases.yaml:4:1: error[unknown-key] $.case: unknown key 'case'" in run.stdout


@pytest.mark.parametrize(("broken", "said"), [
    ("name: writer\nhandoff:\n\ttrigger: handoff_writer\n",
     "writer.yaml:3:1: error[yaml-tab] line 3 is indented with a tab: YAML indents with spaces "
     "only (replace the tab with spaces)"),
    ("name: writer\nhandoff:\n  trigger: handoff_writer\n peers: [coordinator]\n",
     "writer.yaml:4:2: error[yaml-syntax] line 4 is indented 1 space, which lines up with no key "
     "or list item above it: indent 'peers' by 2 like 'trigger' (line 3) or by 0 like "
     "'handoff' (line 2)"),
    ("name: writer\ncapabilities:\n  - write\n   - summarize\n",
     "writer.yaml:3:5: error[schema] $.capabilities[0]: '- summarize' (line 4) is indented "
     "deeper than '- write' (line 3), so YAML reads both as one item: line up its '-' with "
     "line 3's (2 spaces); 'write - summarize' does not match"),
], ids=["tab", "key-dedented-wrongly", "list-item-misaligned"])
def test_indentation_mistakes_are_said_in_the_authors_words(
    broken: str, said: str, tmp_path: Path
) -> None:
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    (tmp_path / "research" / "agents" / "writer.yaml").write_text(broken, "utf-8")
    run = handoff("research", cwd=tmp_path)
    assert run.returncode == 1
    assert_no_traceback(run)
    assert run.stdout.startswith(f"research/agents/{said}"), run.stdout


def test_routing_that_cannot_happen_warns_and_fails_strict() -> None:
    cases = [INVALID / "shared-keyword", INVALID / "rule-always-refused"]
    folders = [str(case.relative_to(REPO)) for case in cases]
    lenient = handoff(*folders)
    assert lenient.returncode == 0, lenient.stdout
    strict = handoff(*folders, "--strict", "--format", "json")
    assert strict.returncode == 1
    found = {(issue["code"], Path(issue["file"]).name, issue["line"], issue["severity"])
             for issue in json.loads(strict.stdout)["issues"]}
    assert found == {
        ("shared-keyword", "capabilities.yaml", 7, "warning"),
        ("unreachable-example", "fraud.yaml", 6, "warning"),
        ("rule-always-refused", "routing.yaml", 14, "warning"),
    }


def test_corpora_given_with_the_set_are_checked_row_by_row(tmp_path: Path) -> None:
    """A bad CSV row, an unknown agent label and bytes that are not UTF-8: each located at
    its line, against the names of the set the corpus lies in; a corpus in no set's folder
    is checked row by row alone."""
    shutil.copytree(CONFIGS / "banking", tmp_path / "banking")
    (tmp_path / "banking" / "calls.csv").write_bytes(
        b"text,agent\nmy card was stolen,fraud_agent\nwhat card should I get,card_recomendation\n"
        b"\xff\xfe lost,claims\nhi,concierge,extra\n")
    (tmp_path / "banking" / "calls.jsonl").write_bytes(
        b'{"text": "hi", "agent": "concierge"}\n{"text": "x", "agent": "claims", "from": "bob"}\n')
    (tmp_path / "loose.csv").write_bytes(b"text,agent\nhello,whoever\n\"open,concierge\n")
    run = handoff("banking", "banking/calls.csv", "banking/calls.jsonl", "loose.csv",
                  cwd=tmp_path)
    assert run.returncode == 1
    assert_no_traceback(run)
    assert run.stdout.splitlines() == [
        "banking/calls.csv:3: error[corpus-unknown-agent] agent 'card_recomendation' is not an "
        "agent of the config; did you mean 'card_recommendation'?",
        "banking/calls.csv:4: error[corpus-encoding] not valid UTF-8 (byte 0xff at column 1); "
        "skipped",
        "banking/calls.csv:5: error[corpus-columns] expected 2 field(s) as in the header, got 3",
        "banking/calls.jsonl:2: error[corpus-unknown-agent] sender ('from') 'bob' is not an "
        "agent of the config",
        "loose.csv:3: error[corpus-syntax] not valid CSV: unexpected end of data",
        "checked 1 set, 9 files: 5 error(s), 0 warning(s)",
    ]
    (tmp_path / "banking" / "calls.jsonl").write_bytes(b'{"text": "hi", "agent": "concierge"}\n')
    fixed = handoff("banking/calls.jsonl", cwd=tmp_path)
    assert (fixed.returncode, fixed.stdout.strip()) == (0, "checked 1 set, 9 files: ok")
