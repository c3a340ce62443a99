"""Public loader API: load_config, check_paths, load_document; names as given, content versions."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from engine.loading.loader import check_paths, load_config, load_document
from tests.conftest import CONFIGS
from tests.unit.config.helpers import config_set

Write = Callable[[dict[str, str]], Path]
GOOD = {"a": "name: a\nhandoff: {is_entry_point: true, trigger: go_a}\nterminal: true\n"}


def test_load_config_accepts_the_root_file_or_its_folder(write_files: Write) -> None:
    root = config_set(write_files, GOOD)
    by_folder = load_config(root)
    by_file = load_config(root / "engine.yaml")
    assert by_folder.version == by_file.version
    assert by_folder.root == str(root / "engine.yaml")
    assert by_folder.trigger_map == {"go_a": "a"}
    assert by_folder.config.files[0] == str(root / "engine.yaml")


def test_version_is_a_content_hash(write_files: Write) -> None:
    root = config_set(write_files, GOOD)
    first = load_config(root).version
    assert load_config(root).version == first
    (root / "capabilities.yaml").write_text(
        "capabilities:\n  alpha: {keywords: [first, more]}\n", encoding="utf-8"
    )
    assert load_config(root).version != first


def test_load_config_raises_with_every_issue(write_files: Write) -> None:
    root = config_set(write_files, {"a": "name: a\npeer: []\n", "b": "name: [b\n"})
    with pytest.raises(ConfigError) as caught:
        load_config(root)
    assert sorted(i.code for i in caught.value.issues) == ["unknown-key", "yaml-syntax"]
    assert "2 error(s)" in str(caught.value)


def test_load_config_on_a_folder_without_root(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert [i.code for i in caught.value.issues] == ["no-config"]


def test_file_names_stay_as_the_user_gave_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CONFIGS / "banking", tmp_path / "sets" / "banking")
    routing = tmp_path / "sets" / "banking" / "routing.yaml"
    routing.write_text(routing.read_text("utf-8").replace("to: claims", "to: claimz"), "utf-8")
    monkeypatch.chdir(tmp_path)
    result = check_paths(["sets/"])
    assert [(i.file, i.code) for i in result.issues] == [
        ("sets/banking/routing.yaml", "unknown-agent")
    ]
    assert str(result.issues[0]).startswith("sets/banking/routing.yaml:")
    assert "did you mean 'claims'?" in result.issues[0].message


def test_check_paths_finds_every_set_below_a_folder() -> None:
    result = check_paths([CONFIGS])
    assert result.issues == ()
    names = sorted(snapshot.config.engine.name for snapshot in result.snapshots)
    assert names == ["banking-concierge", "research-team"]
    assert not result.failed(strict=True)


def test_check_paths_reports_sets_independently(write_files: Write, tmp_path: Path) -> None:
    config_set(write_files, GOOD)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "engine.yaml").write_text("name: x\n", encoding="utf-8")
    result = check_paths([tmp_path, tmp_path / "missing", tmp_path / "agents"])
    assert sorted((Path(i.file).name, i.code) for i in result.issues) == [
        ("agents", "no-config"),
        ("engine.yaml", "required"),
        ("engine.yaml", "required"),
        ("missing", "file-not-found"),
    ]
    assert len(result.snapshots) == 1


def test_load_document_validates_one_file_against_a_bundled_schema(tmp_path: Path) -> None:
    good = tmp_path / "caps.json"
    good.write_text('{"capabilities": {"a": {"keywords": ["x"]}}}', encoding="utf-8")
    data, issues = load_document(good, "capabilities.schema.json")
    assert issues == [] and data == {"capabilities": {"a": {"keywords": ["x"]}}}
    bad = tmp_path / "caps.yaml"
    bad.write_text("capabilities:\n  a: {keyword: [x]}\n", encoding="utf-8")
    data, issues = load_document(bad, "capabilities.schema.json", max_bytes=1000)
    assert data is None
    assert [(i.code, i.line, i.col) for i in issues] == [("unknown-key", 2, 7)]


ROOT_TEXT = st.sampled_from(
    [
        "name: t\nentry: a\ninclude:\n  agents: [{}]\n",
        "name: t\nentry: a\ninclude:\n  agents: ['agents/*.yaml']\n  routing: [{}]\n",
    ]
)
PATTERN = st.text(st.sampled_from(list("*?[]./\\ab-:~{}")), min_size=1, max_size=12)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(template=ROOT_TEXT, pattern=PATTERN)
def test_any_include_glob_gives_issues_never_an_exception(
    tmp_path: Path, template: str, pattern: str
) -> None:
    root = tmp_path / "set"
    (root / "agents").mkdir(parents=True, exist_ok=True)
    (root / "agents" / "a.yaml").write_text("name: a\nterminal: true\n", encoding="utf-8")
    (root / "engine.yaml").write_text(template.format(json.dumps(pattern)), encoding="utf-8")
    result = check_paths([root])
    assert all(issue.file.startswith(str(root)) for issue in result.issues)


def test_paths_the_os_refuses_are_issues(tmp_path: Path) -> None:
    long_name = tmp_path / ("x" * 300)
    result = check_paths([long_name, str(tmp_path) + "/a\0b"])
    assert [issue.code for issue in result.issues] == ["unreadable", "unreadable"]
    with pytest.raises(ConfigError):
        load_config(long_name)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(content=st.binary(max_size=200))
def test_any_bytes_in_an_agent_file_give_issues_never_an_exception(
    tmp_path: Path, content: bytes
) -> None:
    root = tmp_path / "set"
    (root / "agents").mkdir(parents=True, exist_ok=True)
    (root / "engine.yaml").write_text(
        "name: t\nentry: a\ninclude: {agents: ['agents/*.yaml']}\n", encoding="utf-8"
    )
    (root / "agents" / "a.yaml").write_bytes(content)
    result = check_paths([root])
    assert result.failed(strict=True) or result.snapshots


def test_a_member_file_stands_for_its_whole_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CONFIGS / "banking", tmp_path / "banking")
    monkeypatch.chdir(tmp_path)
    result = check_paths(["banking/agents/claims.yaml", "banking/routing.yaml"])
    assert result.issues == ()
    assert len(result.snapshots) == 1  # one set, checked once
    broken = tmp_path / "banking" / "agents" / "fraud_agent.yaml"
    broken.write_text(broken.read_text("utf-8").replace("peers:", "peer:"), "utf-8")
    result = check_paths(["banking/agents/claims.yaml"])
    assert [(i.file, i.code) for i in result.issues] == [
        ("banking/agents/fraud_agent.yaml", "unknown-key")
    ]


def test_a_file_its_set_does_not_include_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    (tmp_path / "research" / "drafts").mkdir()
    (tmp_path / "research" / "drafts" / "agent.yaml").write_text("name: x\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    result = check_paths(["research/drafts/agent.yaml"])
    assert [(i.file, i.code, i.is_error) for i in result.issues] == [
        ("research/drafts/agent.yaml", "not-included", False)
    ]
    assert "research/engine.yaml does not include" in result.issues[0].message


def test_a_changed_cases_file_is_checked_as_one_against_its_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    monkeypatch.chdir(tmp_path)
    clean = check_paths(["research/cases.yaml"])
    assert clean.issues == () and not clean.failed(strict=True)
    assert (clean.sets, clean.files) == (1, 6)
    cases = tmp_path / "research" / "cases.yaml"
    text = cases.read_text("utf-8")
    cases.write_text(text.replace("expect: {target: analyst, layer: trigger}",
                                  "expect: {target: analyts, layer: trigger}", 1), "utf-8")
    result = check_paths(["research/cases.yaml", "research/routing.yaml"])
    assert [(i.file, i.code, i.json_path) for i in result.issues] == [
        ("research/cases.yaml", "unknown-agent", "$.cases[0].expect.target")]
    assert result.issues[0].line == 8 and "did you mean 'analyst'?" in result.issues[0].message


def test_a_cases_file_of_a_set_that_fails_is_still_checked_for_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    monkeypatch.chdir(tmp_path)
    routing = tmp_path / "research" / "routing.yaml"
    routing.write_text(routing.read_text("utf-8").replace("to: writer", "to: nobody"), "utf-8")
    (tmp_path / "research" / "cases.yaml").write_text("cases:\n  - name: x\n", "utf-8")
    result = check_paths(["research/cases.yaml"])
    assert sorted({(i.file, i.code) for i in result.issues}) == [
        ("research/cases.yaml", "required"), ("research/routing.yaml", "unknown-agent")]
    assert result.files == 6  # listed without loading


def test_skip_unowned_ignores_files_in_no_set(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    (tmp_path / "ci.yaml").write_text("on: push\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert check_paths(["ci.yaml", "research/routing.yaml"], skip_unowned=True).issues == ()
    assert [i.code for i in check_paths(["ci.yaml"]).issues] != []


def test_a_corpus_of_a_set_that_did_not_load_is_checked_by_its_rows_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its names wait for the set; its bytes and shape do not."""
    shutil.copytree(CONFIGS / "research", tmp_path / "research")
    monkeypatch.chdir(tmp_path)
    corpus = tmp_path / "research" / "calls.csv"
    corpus.write_bytes(b"text,agent\nfind papers,nobody\n\xff,analyst\n")
    loaded = check_paths(["research/calls.csv"])
    assert [(i.line, i.code) for i in loaded.issues] == [
        (2, "corpus-unknown-agent"), (3, "corpus-encoding")]
    root = tmp_path / "research" / "engine.yaml"
    root.write_text(root.read_text("utf-8").replace("include:", "include: 5\nx:"), "utf-8")
    broken = check_paths(["research/calls.csv"])
    assert [(i.file, i.code) for i in broken.issues if i.file.endswith(".csv")] == [
        ("research/calls.csv", "corpus-encoding")]
