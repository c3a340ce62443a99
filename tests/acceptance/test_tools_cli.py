"""`handoff tools` in a real process: an agent's handoff tools as OpenAI / Anthropic JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.patience import HANG_S

BANKING = Path(__file__).resolve().parents[2] / "configs" / "banking"


def tools(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "tools", *map(str, args)],
        capture_output=True, text=True, timeout=HANG_S, check=False,
    )


@pytest.mark.slow
def test_openai_and_anthropic_shapes_for_the_fraud_agent() -> None:
    openai = tools(BANKING, "--agent", "fraud_agent", "--format", "openai")
    anthropic = tools(BANKING, "--agent", "fraud_agent", "--format", "anthropic")
    assert openai.returncode == anthropic.returncode == 0, openai.stderr + anthropic.stderr
    first, second = json.loads(openai.stdout), json.loads(anthropic.stdout)
    names = [tool["function"]["name"] for tool in first]
    # fraud_agent's peers, by policy: claims, compliance_desk, concierge (not itself)
    assert sorted(names) == ["handoff_claims", "handoff_compliance_desk", "handoff_concierge"]
    assert all(tool["type"] == "function" for tool in first)
    assert [tool["name"] for tool in second] == names
    assert all(tool["input_schema"]["type"] == "object" for tool in second)


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["openai-responses", "openai-realtime"])
def test_flat_function_shapes_for_responses_and_realtime(shape: str) -> None:
    result = tools(BANKING, "--agent", "fraud_agent", "--format", shape)
    assert result.returncode == 0, result.stderr
    rendered = json.loads(result.stdout)
    assert sorted(tool["name"] for tool in rendered) == [
        "handoff_claims", "handoff_compliance_desk", "handoff_concierge"]
    assert all(tool["type"] == "function" and "function" not in tool for tool in rendered)
    assert all(("strict" in tool) == (shape == "openai-responses") for tool in rendered)


@pytest.mark.slow
def test_unknown_format_is_a_usage_error_listing_the_choices() -> None:
    result = tools(BANKING, "--agent", "fraud_agent", "--format", "gemini")
    assert result.returncode == 2
    assert "openai-realtime" in result.stderr and "anthropic" in result.stderr


@pytest.mark.slow
def test_parameters_come_from_the_target_payload_schema() -> None:
    result = tools(BANKING, "--agent", "concierge")  # openai by default
    assert result.returncode == 0, result.stderr
    by_name = {tool["function"]["name"]: tool["function"] for tool in json.loads(result.stdout)}
    fraud = by_name["handoff_fraud_agent"]
    assert fraud["parameters"]["required"] == ["reason"]
    assert fraud["parameters"]["properties"]["card_last4"]["pattern"] == "^[0-9]{4}$"
    assert "fraud team" in fraud["description"]


@pytest.mark.slow
def test_unknown_agent_is_a_usage_error() -> None:
    result = tools(BANKING, "--agent", "nobody")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "unknown agent 'nobody'" in result.stderr and "fraud_agent" in result.stderr


@pytest.mark.slow
def test_invalid_config_exits_1_with_located_issues(tmp_path: Path) -> None:
    (tmp_path / "engine.yaml").write_text("version: 1\nname: x\nentry: [\n", encoding="utf-8")
    result = tools(tmp_path, "--agent", "a")
    assert result.returncode == 1
    assert "engine.yaml:" in result.stderr and "error[" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("schema", ["true"])
def test_boolean_payload_schemas_check_and_give_tools(tmp_path: Path, schema: str) -> None:
    """A boolean schema is a JSON Schema: `check` passes it and `tools` renders the tool."""
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    claims = folder / "agents" / "claims.yaml"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(text.replace("peers:", f"accepts:\n  payload_schema: {schema}\npeers:"),
                      encoding="utf-8")
    check = subprocess.run([sys.executable, "-m", "engine", "check", str(folder)],
                           capture_output=True, text=True, timeout=HANG_S, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    result = tools(folder, "--agent", "fraud_agent")
    assert result.returncode == 0, result.stderr
    claims_tool = next(t for t in json.loads(result.stdout)
                       if t["function"]["name"] == "handoff_claims")
    assert claims_tool["function"]["parameters"]["type"] == "object"


@pytest.mark.slow
def test_strict_tools_where_the_schema_allows_and_a_note_where_it_does_not(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "banking"
    shutil.copytree(BANKING, folder)
    claims = folder / "agents" / "claims.yaml"  # an open object: strict mode cannot say it
    claims.write_text(claims.read_text(encoding="utf-8") + "accepts:\n  payload_schema:\n"
                      "    type: object\n    patternProperties: {'^x_': {type: string}}\n",
                      encoding="utf-8")
    done = tools(folder, "--agent", "concierge", "--strict")
    assert done.returncode == 0, done.stderr
    by_name = {tool["function"]["name"]: tool["function"] for tool in json.loads(done.stdout)}
    fraud = by_name["handoff_fraud_agent"]
    assert fraud["strict"] is True
    parameters = fraud["parameters"]
    assert parameters["additionalProperties"] is False
    assert sorted(parameters["required"]) == sorted(parameters["properties"])
    assert parameters["properties"]["suspected_amount"]["type"] == ["number", "null"]
    assert "strict" not in by_name["handoff_claims"]
    assert done.stderr.startswith("handoff_claims: left non-strict")
    responses = tools(folder, "--agent", "concierge", "--strict", "--format", "openai-responses")
    flat = {tool["name"]: tool for tool in json.loads(responses.stdout)}
    assert flat["handoff_fraud_agent"]["strict"] is True
    assert flat["handoff_claims"]["strict"] is False


@pytest.mark.slow
def test_strict_with_a_format_that_has_no_strict_mode_is_a_usage_error() -> None:
    done = tools(BANKING, "--agent", "concierge", "--strict", "--format", "anthropic")
    assert done.returncode == 2 and done.stdout == ""
    assert "--strict applies to openai and openai-responses, not anthropic" in done.stderr
