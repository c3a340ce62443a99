"""The contract of the reload memory: after an edit of any kind of file of a set, the snapshot a
reload serves (or the issues it rejects with) is exactly what a cold load of the same files
gives. One set is edited file kind after file kind, the reloader kept throughout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

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
