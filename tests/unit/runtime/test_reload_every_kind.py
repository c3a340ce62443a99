"""The contract of the reload memory: after an edit of any kind of file of a set, the snapshot a
reload serves (or the issues it rejects with) is exactly what a cold load of the same files
gives. One set is edited file kind after file kind, the reloader kept throughout."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import signature
from engine.errors import ConfigError
from engine.loading.loader import load_config
from engine.runtime.reload import Reloader
from tests.unit.runtime.conftest import assert_same_snapshot

EXTRA = "capabilities:\n  savings_goals:\n    description: Saving towards a goal.\n" \
        "    keywords: [savings goal]\n"
DESK = """name: savings_desk
description: Helps callers set savings goals.
capabilities: [savings_goals]
handoff:
  trigger: handoff_savings_desk
peers: [concierge]
"""
Edit = tuple[str, str | None, str | None]
"""(file in the set, text replaced (None: the file is written whole), its replacement (None:
the file is removed))."""
EDITS: list[tuple[str, list[Edit]]] = [
    ("root policy", [("engine.yaml", "max_hops: 6", "max_hops: 5")]),
    ("a new include glob and its file", [
        ("extra/savings.yaml", None, EXTRA),
        ("engine.yaml", '  capabilities: ["capabilities.yaml"]',
         '  capabilities: ["capabilities.yaml", "extra/*.yaml"]'),
    ]),
    ("the included file", [("extra/savings.yaml", "Saving towards", "Putting money by for")]),
    ("capabilities", [("capabilities.yaml", "keywords: [balance,", "keywords: [balances,")]),
    ("routing", [("routing.yaml", "    to: card_recommendation\n",
                  "    to: investment_advisor\n")]),
    ("an agent's description", [("agents/claims.yaml", "Files and tracks", "Opens and tracks")]),
    ("an agent's peers", [("agents/claims.yaml", "peers: [concierge, fraud_agent]",
                           "peers: [concierge]")]),
    ("a new agent", [("agents/savings_desk.yaml", None, DESK)]),
    ("an unknown peer", [("agents/savings_desk.yaml", "peers: [concierge]", "peers: [ghost]")]),
    ("the peer fixed", [("agents/savings_desk.yaml", "peers: [ghost]", "peers: [concierge]")]),
    ("an agent removed", [("agents/savings_desk.yaml", None, None)]),
    ("a broken root", [("engine.yaml", "version: 1", "version: [1")]),
    ("the root fixed", [("engine.yaml", "version: [1", "version: 1")]),
    ("the cases file beside the set", [("cases.yaml", "Routing test cases", "Cases")]),
]


def _apply(folder: Path, edit: Edit) -> str:
    """Make one edit as an editor saves (a temporary file renamed over the old one); the
    absolute path it changed, as a watcher reports it."""
    relative, old, new = edit
    path = folder / relative
    if new is None:
        path.unlink()
    else:
        text = new if old is None else path.read_text("utf-8")
        assert old is None or old in text, f"{relative} no longer holds {old!r}"
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{path.name}.tmp")
        temp.write_text(text if old is None else text.replace(old, new, 1), encoding="utf-8")
        os.replace(temp, path)
    return str(path.resolve())


def _assert_like_cold(reloader: Reloader, outcome: str, issues: tuple[Any, ...]) -> None:
    try:
        cold = load_config(reloader.path)
    except ConfigError as error:
        assert outcome == "rejected"
        assert [str(found) for found in issues] == [str(found) for found in error.issues]
        return
    assert_same_snapshot(reloader.current, cold)


@pytest.mark.slow
@pytest.mark.parametrize("settled", [True, False], ids=["settled-files", "racy-files"])
def test_an_edit_of_every_kind_of_file_reloads_to_a_cold_load(
    config_folder: Any, monkeypatch: pytest.MonkeyPatch, settled: bool
) -> None:
    """Settled files are trusted by their stat and each reload is told the changed paths (as
    the watcher does); racy files are read again and each reload looks at every file."""
    if settled:
        monkeypatch.setattr(signature, "RACY_S", -3600.0)  # every file written long ago
    reloader = Reloader(config_folder.path)
    for what, edits in EDITS:
        changed = {_apply(config_folder.path, edit) for edit in edits}
        result = reloader.reload(changed=changed if settled else None)
        assert result.outcome != "rejected" or what in ("an unknown peer", "a broken root")
        _assert_like_cold(reloader, result.outcome, result.issues)


RESEARCH = Path(__file__).resolve().parents[3] / "configs" / "research"
AGENTS = ("analyst", "coordinator", "writer")
CAPABILITIES = ("plan", "analyze", "report", "write", "summarize")
WORDS = ("forecast", "budget", "churn", "memo", "abstract")
SENTENCES = ("project the budget for next year", "sum up this memo for me",
             "which churn figures do we have")
Step = tuple[str, int, int]
"""(what to edit, and two numbers that choose how)."""


def _yaml_edit(folder: Path, relative: str, change: Any) -> str:
    """Load one file with ruamel.yaml, let `change` edit the data, save it as an editor would."""
    from io import StringIO

    from ruamel.yaml import YAML

    yaml = YAML()
    data = yaml.load((folder / relative).read_text("utf-8"))
    change(data)
    out = StringIO()
    yaml.dump(data, out)
    return _apply(folder, (relative, None, out.getvalue()))


def _listed(items: Any, value: str, add: bool) -> None:
    """Add `value` to a YAML list, or take its last item out (a list is never left empty)."""
    if add and value not in items:
        items.append(value)
    elif not add and len(items) > 1:
        del items[-1]


def _step(folder: Path, step: Step) -> str:
    """Make one edit of `step`'s kind in the research set; the path it changed. Some edits
    make the set invalid (an unknown agent or capability, a file that does not parse)."""
    kind, a, b = step
    agent = f"agents/{AGENTS[a % 3]}.yaml"
    if kind == "policy":
        return _yaml_edit(folder, "engine.yaml",
                          lambda d: d["policies"].__setitem__("max_hops", 1 + a % 9))
    if kind == "keyword":
        return _yaml_edit(folder, "capabilities.yaml", lambda d: _listed(
            d["capabilities"][CAPABILITIES[a % 5]]["keywords"], WORDS[b % 5], b % 2 == 0))
    if kind == "example":
        return _yaml_edit(folder, "capabilities.yaml", lambda d: _listed(
            d["capabilities"][CAPABILITIES[a % 5]]["examples"], SENTENCES[b % 3], b % 2 == 0))
    if kind == "capabilities":  # "ghost" is no capability of the set
        chosen = [name for n, name in enumerate((*CAPABILITIES, "ghost")) if b >> n & 1]
        return _yaml_edit(folder, agent, lambda d: d.__setitem__("capabilities",
                                                                 chosen or ["plan"]))
    if kind == "peers":  # "nobody" is no agent of the set
        chosen = [name for n, name in enumerate((*AGENTS, "nobody")) if b >> n & 1]
        return _yaml_edit(folder, agent, lambda d: d.__setitem__("peers", chosen))
    if kind == "rule":
        target = (*AGENTS, "ghost")[b % 4]
        return _yaml_edit(folder, "routing.yaml",
                          lambda d: d["rules"][a % 2].__setitem__("to", target))
    if kind == "description":
        return _yaml_edit(folder, agent, lambda d: d.__setitem__("description", f"Edit {b}."))
    if kind == "new agent":
        path = folder / "agents" / "extra.yaml"
        if path.exists():
            return _apply(folder, ("agents/extra.yaml", None, None))
        text = DESK.replace("savings_desk", "extra").replace("savings_goals", CAPABILITIES[b % 5])
        return _apply(folder, ("agents/extra.yaml", None, text))
    if kind == "garble":
        return _apply(folder, ((agent, "engine.yaml", "routing.yaml")[b % 3], None, "key: [open"))
    if kind == "same text":  # saved again unchanged: a new file, the same bytes
        return _apply(folder, (agent, None, (folder / agent).read_text("utf-8")))
    raise AssertionError(kind)


KINDS = ("policy", "keyword", "example", "capabilities", "peers", "rule", "description",
         "new agent", "garble", "same text")


@pytest.mark.slow
@pytest.mark.parametrize("settled", [True, False], ids=["settled-files", "racy-files"])
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 63), st.integers(0, 63)),
                min_size=1, max_size=8))
def test_any_sequence_of_edits_reloads_to_a_cold_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool, steps: list[Step]
) -> None:
    """Random edits of the research set, valid and not, one reload after each: the reloader,
    kept throughout, serves what a cold load of the same files gives, or rejects with the
    same issues; a reload that finds the files as the last one left them says "unchanged"
    and keeps serving (a garbled file is restored before the next edit)."""
    if settled:
        monkeypatch.setattr(signature, "RACY_S", -3600.0)
    folder = Path(tempfile.mkdtemp(dir=tmp_path)) / "research"
    shutil.copytree(RESEARCH, folder)
    reloader = Reloader(folder)
    rejected: tuple[Any, ...] | None = None  # the issues of the files as they are, if any
    for step in steps:
        saved = {path: path.read_text("utf-8") for path in folder.rglob("*.yaml")}
        changed = {_step(folder, step)}
        rejected = _like_cold(reloader, reloader.reload(changed=changed if settled else None),
                              rejected)
        if step[0] == "garble":  # the next edit starts from a set that parses
            restored = {_apply(folder, (str(path.relative_to(folder)), None, text))
                        for path, text in saved.items()}
            rejected = _like_cold(
                reloader, reloader.reload(changed=restored if settled else None), rejected)


def _like_cold(reloader: Reloader, result: Any, rejected: tuple[Any, ...] | None
               ) -> tuple[Any, ...] | None:
    """Check `result` against a cold load of the files; the issues they are now rejected
    with (None: they load). `rejected`: the issues as the reload before left them."""
    if result.outcome != "unchanged" or result.rebuilt:  # else: files as the last reload saw
        rejected = result.issues if result.outcome == "rejected" else None
    try:
        cold = load_config(reloader.path)
    except ConfigError as error:
        assert rejected is not None, f"served {result.outcome}, but a cold load fails"
        assert [str(found) for found in rejected] == [str(found) for found in error.issues]
        return rejected
    assert rejected is None, "rejected, but a cold load of the same files succeeds"
    assert_same_snapshot(reloader.current, cold)
    return None
