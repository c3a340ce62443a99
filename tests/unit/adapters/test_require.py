"""The adapter tests' guard: a missing framework skips with the install command on a developer's
machine and fails where HANDOFF_REQUIRE_ADAPTERS=1 (CI), so CI can never skip them silently."""

from __future__ import annotations

import pytest

from .conftest import REQUIRE, framework


def test_a_missing_framework_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE, "1")
    with pytest.raises(ModuleNotFoundError):
        framework("no_such_framework_installed", "openai-agents")


def test_a_missing_framework_skips_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        framework("no_such_framework_installed", "langgraph")
    assert "pip install -e '.[langgraph]'" in str(skipped.value)
