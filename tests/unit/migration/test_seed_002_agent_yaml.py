"""The voice runtime's agent.yaml, as its users write it: runtime fields (greeting, model,
voice, session, tools, prompt, handoff.strategy) accepted, typed with the runtime's names,
checked by the schema with located errors, and passed through to the runtime.

The set is tests/fixtures/configs/valid/art-voice-agents: two agent files in the shape of the
runtime's own concierge and fraud_agent examples (only `peers` added).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine import (
    Engine,
    HandoffConfig,
    ModelConfig,
    UnifiedAgent,
    VoiceConfig,
    check_paths,
    load_config,
)
from engine.adapters.common import (
    greeting_for,
    instructions_for,
    model_for,
    tools_for,
    voice_for,
)
from tests.conftest import FIXTURES

SET = FIXTURES / "configs" / "valid" / "art-voice-agents"


def test_the_runtime_agent_files_load_with_typed_runtime_fields() -> None:
    snapshot = load_config(SET)
    assert snapshot.warnings == ()
    fraud: UnifiedAgent = snapshot.agents["FraudAgent"]
    assert isinstance(fraud.model, ModelConfig) and isinstance(fraud.voice, VoiceConfig)
    assert fraud.model.deployment_id == fraud.model.name == "gpt-4o-mini"
    assert (fraud.model.temperature, fraud.model.top_p) == (0.6, 0.9)  # the runtime's defaults
    assert fraud.voice.to_dict() == {"name": "en-US-OnyxTurboMultilingualNeural",
                                     "type": "azure-standard", "style": "chat", "rate": "0%"}
    assert fraud.greeting.startswith("You are now speaking with the Fraud Prevention desk")
    assert fraud.return_greeting.startswith("Welcome back to the Fraud Prevention desk")
    assert fraud.session["turn_detection"]["threshold"] == 0.48
    assert fraud.tool_names == ("analyze_recent_transactions", "block_card_emergency",
                                "handoff_concierge")
    assert fraud.prompt_template.startswith("You are the fraud desk of {{ institution_name }}")
    assert fraud.template_vars == {"institution_name": "Contoso Bank"}
    concierge = snapshot.agents["Concierge"]
    assert isinstance(concierge.handoff, HandoffConfig)
    assert (concierge.handoff.strategy, concierge.handoff.is_entry_point) == ("auto", True)
    assert concierge.prompt_path == "prompt.jinja" and concierge.prompt_template == ""
    assert concierge.model == ModelConfig()  # not declared: the runtime's defaults
    assert "{{ agent_name | default('Erica') }}" in concierge.greeting  # templates stay as written


def test_seed_config_classes_keep_their_names_defaults_and_dict_helpers() -> None:
    assert ModelConfig.from_dict({"name": "gpt-4.1"}).deployment_id == "gpt-4.1"
    assert ModelConfig.from_dict(None).to_dict() == {
        "deployment_id": "gpt-4o", "name": "gpt-4o", "temperature": 0.7, "top_p": 0.9,
        "max_tokens": 4096}
    assert VoiceConfig.from_dict({}).name == "en-US-ShimmerTurboMultilingualNeural"


def test_runtime_fields_reach_the_runtime_and_the_adapter_helpers() -> None:
    with Engine(SET) as live:
        outcome = live.handoff("my card was stolen", sender="Concierge",
                               tool="handoff_fraud_agent")
        assert outcome.target == "FraudAgent"
        assert outcome.system_vars["greeting"] == live.snapshot.agents["FraudAgent"].greeting
        fraud = live.snapshot.agents["FraudAgent"]
        concierge = live.snapshot.agents["Concierge"]
    assert greeting_for(fraud, returning=True) == fraud.return_greeting
    assert voice_for(fraud) == "en-US-OnyxTurboMultilingualNeural"
    assert model_for(fraud) == "gpt-4o-mini"
    assert model_for(concierge) is None  # undeclared: the framework's own default
    assert instructions_for(fraud) == fraud.prompt_template
    toolbox = {"analyze_recent_transactions": "a", "block_card_emergency": "b"}
    assert tools_for(fraud, toolbox, {"handoff_concierge"}) == ["a", "b"]


def test_wrong_runtime_field_types_and_repeated_spellings_are_located_errors() -> None:
    case = FIXTURES / "configs" / "invalid" / "voice-runtime-fields"
    found = {(Path(issue.file).name, issue.line, issue.json_path, issue.code)
             for issue in check_paths([case]).issues}
    assert found == {
        ("a.yaml", 5, "$.handoff.strategy", "enum"),
        ("a.yaml", 7, "$.model.temperature", "type"),
        ("a.yaml", 8, "$.voice", "type"),
        ("a.yaml", 9, "$.tools", "type"),
        ("b.yaml", 4, "$.tool_names", "conflicting-key"),
        ("b.yaml", 6, "$.prompt_template", "conflicting-key"),
    }


@pytest.mark.parametrize(
    ("written", "meant", "code"),
    [("temperature: 0.6", "temperature: 3", "schema"),
     ('rate: "0%"', "pitch: high", "unknown-key")],
)
def test_out_of_range_or_unknown_model_and_voice_settings_are_refused(
    tmp_path: Path, written: str, meant: str, code: str
) -> None:
    folder = tmp_path / "set"
    shutil.copytree(SET, folder)
    agent = folder / "agents" / "fraud_agent" / "agent.yaml"
    agent.write_text(agent.read_text(encoding="utf-8").replace(written, meant), encoding="utf-8")
    [issue] = check_paths([folder]).issues
    assert (Path(issue.file).parent.name, issue.code) == ("fraud_agent", code)


def test_a_greeting_left_blank_is_no_greeting(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    shutil.copytree(SET, folder)
    agent = folder / "agents" / "fraud_agent" / "agent.yaml"
    text = agent.read_text(encoding="utf-8")
    start = text.index("return_greeting:")
    end = text.index("\n", start)
    agent.write_text(text[:start] + "return_greeting:" + text[end:], encoding="utf-8")
    fraud = load_config(folder).agents["FraudAgent"]
    assert fraud.return_greeting == "" and greeting_for(fraud, returning=True) == fraud.greeting
