"""The fixture corpus: every valid set loads clean, every invalid set yields exactly its issues.

Each folder under tests/fixtures/configs/invalid/ holds an `expect.yaml` listing the code,
file (relative to the folder), line and, optionally, a message fragment and severity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from engine.issues import Severity
from engine.loading.loader import check_paths, load_config
from tests.conftest import FIXTURES

CORPUS = FIXTURES / "configs"
VALID = sorted(path for path in (CORPUS / "valid").iterdir() if path.is_dir())
INVALID = sorted(path for path in (CORPUS / "invalid").iterdir() if path.is_dir())


def read_expectation(case: Path) -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe", pure=True).load(case / "expect.yaml")
    return data


def relative(file: str, case: Path) -> str:
    return Path(file).relative_to(case).as_posix() if file != str(case) else "."


@pytest.mark.parametrize("case", VALID, ids=[path.name for path in VALID])
def test_valid_case_loads_without_any_issue(case: Path) -> None:
    snapshot = load_config(case)
    assert snapshot.warnings == ()
    assert snapshot.config.engine.entry in snapshot.agents
    assert len(snapshot.version) == 16
    assert check_paths([case]).issues == ()


@pytest.mark.parametrize("case", INVALID, ids=[path.name for path in INVALID])
def test_invalid_case_reports_exactly_its_issues(case: Path) -> None:
    expectation = read_expectation(case)
    caps = {key: expectation[key] for key in ("max_bytes", "max_nodes") if key in expectation}
    result = check_paths([case], **caps)
    found = sorted(
        (issue.code, relative(issue.file, case), issue.line, issue.severity.value)
        for issue in result.issues
    )
    expected = sorted(
        (item["code"], item["file"], item["line"], item.get("severity", "error"))
        for item in expectation["issues"]
    )
    assert found == expected
    for item in expectation["issues"]:
        if "message" in item:
            messages = [issue.message for issue in result.issues if issue.code == item["code"]]
            assert any(item["message"] in message for message in messages), messages
    for issue in result.issues:
        assert issue.message and issue.file.startswith(str(case))
        if issue.line > 0:
            assert issue.col > 0
    has_error = any(issue.severity is Severity.error for issue in result.issues)
    assert result.failed(strict=True)
    assert result.failed() is has_error
    assert (result.snapshots == ()) is has_error


def test_every_issue_code_has_a_fixture() -> None:
    from engine.config.codes import ERROR_CODES, WARNING_CODES

    covered = {item["code"] for case in INVALID for item in read_expectation(case)["issues"]}
    # Covered elsewhere: complex-key by the parse-stage tests (it needs no whole set),
    # not-included by the loader tests (it needs a file, not a folder, passed to check), and
    # the cases-file codes by the routing cases tests (a cases file is no member of a set),
    # and internal-error by the failures the reload tests inject (no file should cause one).
    elsewhere = {"complex-key", "not-included", "unknown-tool", "unknown-rule", "duplicate-case",
                 "internal-error"}
    missing = (set(ERROR_CODES) | set(WARNING_CODES)) - covered - elsewhere
    assert missing == set()
