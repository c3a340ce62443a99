"""The adapter tests' guard: a missing framework skips with the install command on a developer's
machine and fails where HANDOFF_REQUIRE_ADAPTERS=1 (CI), so CI can never skip them silently."""

from __future__ import annotations

import importlib
import re
import sys

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


@pytest.mark.parametrize(("adapter", "framework_module", "extra"), [
    ("engine.adapters.openai_agents", "agents", "openai-agents"),
    ("engine.adapters.langgraph", "langgraph.graph", "langgraph"),
    ("engine.adapters.livekit", "livekit.agents", "livekit"),
    ("engine.adapters.scripted.openai_agents", "agents", "openai-agents"),
    ("engine.adapters.scripted.langgraph", "langchain_core.messages", "langgraph"),
    ("engine.adapters.scripted.livekit", "livekit.agents", "livekit"),
    ("engine.adapters.pipecat", "pipecat.flows", "pipecat"),
    ("engine.adapters.pipecat_call", "pipecat.flows", "pipecat"),
    ("engine.adapters.scripted.pipecat", "pipecat.services.openai.llm", "pipecat"),
])
def test_an_adapter_without_its_framework_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, adapter: str, framework_module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, framework_module, None)  # `import` of it now fails
    monkeypatch.delitem(sys.modules, adapter, raising=False)
    with pytest.raises(ImportError, match=re.escape(f"pip install 'handoff-engine[{extra}]'")):
        importlib.import_module(adapter)
