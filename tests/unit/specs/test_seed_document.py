"""The aumai-specs API reference, example by example and table by table, against this engine.

Each test ports a statement of that reference: the loader functions and their errors, every
enumeration's values, every model's field table, and every cross-field rule.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from engine.specs import (
    SchemaNotFoundError,
    SchemaParseError,
    SchemaValidationError,
    get_schema_path,
    list_schemas,
    load_schema,
    validate,
    validate_error,
    validate_quietly,
)
from engine.specs import models as m
from engine.specs.models.common import SpecModel

NAMES = ["agent_capability_v1", "agent_error_taxonomy_v1", "capsule_format_v1",
         "tool_canonical_ir_v1"]
SEED_MODELS = [
    "ToolCapability", "ToolSecurity", "RateLimit", "ToolCanonicalIR", "ToolSourceFormats",
    "ToolMetadata", "AgentError", "CapsuleStep", "TokenUsage", "StepCost", "RunCapsule",
    "CapsuleAgent", "CapsuleRun", "CapsuleEnvironment", "CapsuleOutcome", "CapsuleIntegrity",
    "AgentCapability", "SandboxConfig", "NetworkConfig", "FilesystemConfig", "ResourceLimits",
    "PermissionsConfig", "ToolDeclaration", "CapabilityMetadata",
    # the parts those models are made of, exported by the seed's models module too
    "AgentErrorTaxonomy", "TaxonomyCategory", "TaxonomyErrorEntry", "ModelInfo", "ToolBinding",
    "SecretBinding", "NetworkEgressRule",
]
ENUMS = {
    "CostEstimate": ["free", "low", "medium", "high"],
    "DataClassification": ["public", "internal", "confidential", "restricted"],
    "PiiHandling": ["none", "read", "write", "both"],
    "SeverityLevel": ["debug", "info", "warning", "error", "critical"],
    "RetryStrategy": ["none", "immediate", "exponential_backoff", "human_escalation"],
    "ErrorCategory": ["planning", "tool_execution", "context", "security", "resource",
                      "orchestration"],
    "SandboxTier": ["e2b_micro", "e2b_standard", "modal_ephemeral", "docker_local", "none"],
    "EgressMode": ["isolated", "allowlist_only", "full_access"],
    "FilesystemMode": ["none", "read_only", "read_write_ephemeral", "read_write_persistent"],
    "ModelProvider": ["anthropic", "openai", "google", "mistral", "cohere", "local"],
    "RunStatus": ["success", "failure", "partial", "cancelled", "timeout"],
    "RunTrigger": ["human", "scheduler", "webhook", "agent", "test"],
    "StepType": ["llm_inference", "tool_call", "tool_result", "planning", "reflection",
                 "memory_read", "memory_write", "human_handoff", "sub_agent_spawn",
                 "sub_agent_result", "error"],
    "SideEffect": ["network_egress", "filesystem_write", "filesystem_read", "database_write",
                   "database_read", "memory_mutation", "external_api_call", "email_send",
                   "process_spawn", "environment_mutation"],
    "NetworkProtocol": ["tcp", "udp", "https", "http"],
    "Environment": ["development", "staging", "production"],
}
NOW = datetime(2026, 3, 1, 9, 30)  # naive, as datetime.utcnow() gives


def test_list_schemas_example() -> None:
    assert list_schemas() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_load_schema_and_get_schema_path(name: str) -> None:
    schema = load_schema(name)
    assert isinstance(schema, dict) and schema["$id"].startswith("https://specs.aumai.dev/")
    assert load_schema(name) == schema  # the same content on every call
    path = get_schema_path(name)
    assert isinstance(path, Path) and path.is_absolute() and path.is_file()


def test_the_three_exceptions_and_their_attributes() -> None:
    with pytest.raises(SchemaNotFoundError) as missing:
        load_schema("tool_canonical_ir_v9")
    assert isinstance(missing.value, FileNotFoundError)
    assert missing.value.schema_name == "tool_canonical_ir_v9"
    with pytest.raises(SchemaNotFoundError):
        get_schema_path("nope")
    parse = SchemaParseError(Path("/x.json"), ValueError("bad"))
    assert isinstance(parse, ValueError) and parse.path == Path("/x.json")
    assert isinstance(parse.cause, ValueError)
    with pytest.raises(SchemaValidationError) as invalid:
        validate({"name": "t"}, "tool_canonical_ir_v1")
    assert isinstance(invalid.value, ValueError)
    assert isinstance(invalid.value.validation_error, jsonschema.exceptions.ValidationError)


def test_validate_returns_true_and_validate_quietly_a_pair() -> None:
    tool = {"name": "web_search", "version": "1.0.0", "inputs": {}, "outputs": {},
            "capabilities": [{"action": "search", "domain": "web"}]}
    assert validate(tool, "tool_canonical_ir_v1") is True
    assert validate_quietly(tool, "tool_canonical_ir_v1") == (True, "")
    ok, message = validate_quietly({}, "tool_canonical_ir_v1")
    assert ok is False and message


@pytest.mark.parametrize("name", SEED_MODELS)
def test_every_model_the_seed_exports_exists(name: str) -> None:
    assert issubclass(getattr(m, name), SpecModel)


@pytest.mark.parametrize(("name", "values"), sorted(ENUMS.items()))
def test_enumerations_have_the_seed_values(name: str, values: list[str]) -> None:
    enum = getattr(m, name)
    assert [member.value for member in enum] == values
    assert all(isinstance(member, str) for member in enum)


def _rejects(model: type[Any], **fields: Any) -> None:
    with pytest.raises(ValidationError):
        model(**fields)


def test_tool_capability_table() -> None:
    capability = m.ToolCapability(action="search", domain="web")
    assert (capability.side_effects, capability.idempotent, capability.timeout_seconds) == (
        [], None, None)
    for field, bad in [("action", ""), ("action", "a" * 129), ("domain", "d" * 129),
                       ("description", "x" * 257), ("timeout_seconds", 0),
                       ("timeout_seconds", 3601), ("cost_estimate", "pricey")]:
        _rejects(m.ToolCapability, **{"action": "a", "domain": "d", field: bad})
    full = m.ToolCapability(action="a", domain="d", side_effects=[m.SideEffect.EMAIL_SEND],
                            idempotent=True, cost_estimate=m.CostEstimate.HIGH,
                            timeout_seconds=3600, description="x" * 256)
    assert full.cost_estimate is m.CostEstimate.HIGH


def test_tool_security_defaults() -> None:
    security = m.ToolSecurity()
    assert security.required_permissions == [] and security.data_classification is None
    assert security.pii_handling is m.PiiHandling.NONE and security.audit_required is False
    assert security.rate_limit is None


def test_tool_canonical_ir_table_and_deprecation_rule() -> None:
    base: dict[str, Any] = {"name": "web_search", "version": "1.0.0", "inputs": {},
                            "outputs": {}, "capabilities": [m.ToolCapability(action="a",
                                                                             domain="d")]}
    tool = m.ToolCanonicalIR(**base)
    assert tool.security == m.ToolSecurity() and tool.tags == []
    for field, bad in [("name", "9lives"), ("name", "has space"), ("version", "1.0"),
                       ("description", "x" * 501), ("capabilities", [])]:
        _rejects(m.ToolCanonicalIR, **{**base, field: bad})
    _rejects(m.ToolCanonicalIR, **{**base, "metadata": m.ToolMetadata(
        deprecation_message="use v2")})
    deprecated = m.ToolCanonicalIR(**{**base, "metadata": m.ToolMetadata(
        deprecated=True, deprecation_message="use v2")})
    assert deprecated.metadata.deprecated


@pytest.mark.parametrize(("hundreds", "category"), list(enumerate(ENUMS["ErrorCategory"], 1)))
def test_agent_error_category_matches_the_hundreds_digit(hundreds: int, category: str) -> None:
    code = hundreds * 100 + 1
    error = m.AgentError(code=code, category=category, message="m", severity="error")
    assert error.recoverable is True and error.context == {}
    wrong = ENUMS["ErrorCategory"][hundreds % 6]
    with pytest.raises(ValidationError, match=f"Code {code} belongs to category"):
        m.AgentError(code=code, category=wrong, message="m", severity="error")


def test_agent_error_table() -> None:
    base = {"code": 201, "category": "tool_execution", "message": "m", "severity": "error"}
    for field, bad in [("code", 99), ("code", 700), ("message", ""), ("message", "x" * 1025),
                       ("step_index", -1), ("cause", "c" * 2049),
                       ("retry_after_seconds", -1), ("severity", "fatal")]:
        _rejects(m.AgentError, **{**base, field: bad})
    full = m.AgentError(**base, agent_id="a", run_id="r", step_index=0, timestamp=NOW,
                        context={"k": "v"}, cause="c", retry_after_seconds=0)
    assert validate_error(full.model_dump(mode="json")) is True
    assert full.timestamp == NOW


def test_capsule_step_table() -> None:
    step = m.CapsuleStep(step_index=0, step_type=m.StepType.LLM_INFERENCE, started_at=NOW,
                         ended_at=NOW, tokens=m.TokenUsage(input_tokens=512, output_tokens=128))
    assert step.tokens is not None and step.tokens.input_tokens == 512
    base = {"step_index": 0, "step_type": "tool_call", "started_at": NOW, "ended_at": NOW}
    for field, bad in [("step_index", -1), ("ended_at", NOW - timedelta(seconds=1)),
                       ("duration_ms", -1), ("error_code", 99), ("error_code", 700)]:
        _rejects(m.CapsuleStep, **{**base, field: bad})
    _rejects(m.CapsuleStep, **{**base, "step_type": "planning", "tool_name": "lookup"})
    call = m.CapsuleStep(**base, tool_name="lookup", tool_call_id="c1")
    result = m.CapsuleStep(**{**base, "step_index": 1, "step_type": "tool_result"},
                           tool_name="lookup", tool_call_id="c1")
    assert call.tool_call_id == result.tool_call_id


def _capsule(**changes: Any) -> m.RunCapsule:
    fields: dict[str, Any] = {
        "capsule_id": "capsule_01HZABCDEFGHIJKLMNOPQRSTUV", "schema_version": "1.0.0",
        "created_at": NOW,
        "agent": m.CapsuleAgent(agent_id="a", agent_name="A", agent_version="1.0.0",
                                model=m.ModelInfo(provider="anthropic", model_id="claude")),
        "run": m.CapsuleRun(run_id="r", started_at=NOW, ended_at=NOW, status="success"),
        "environment": m.CapsuleEnvironment(aumai_runtime_version="1.0.0",
                                            python_version="3.12.1"),
        "outcome": m.CapsuleOutcome(final_answer="Done."),
    }
    return m.RunCapsule(**{**fields, **changes})


def test_run_capsule_table() -> None:
    capsule = _capsule()
    assert capsule.execution_trace == [] and capsule.integrity == m.CapsuleIntegrity()
    assert validate(capsule.model_dump(mode="json"), "capsule_format_v1") is True
    for field, bad in [("capsule_id", "capsule_short"), ("capsule_id", "run_" + "A" * 26),
                       ("schema_version", "1.0.1")]:
        with pytest.raises(ValidationError):
            _capsule(**{field: bad})
    steps = [m.CapsuleStep(step_index=i, step_type="planning", started_at=NOW, ended_at=NOW)
             for i in (0, 1)]
    assert len(_capsule(execution_trace=steps).execution_trace) == 2
    with pytest.raises(ValidationError, match="contiguous and zero-based"):
        _capsule(execution_trace=list(reversed(steps)))


def _capability(**changes: Any) -> m.AgentCapability:
    fields: dict[str, Any] = {
        "capability_version": "1.0.0", "agent_id": "research-agent-v1",
        "agent_name": "Research Agent", "sandbox": m.SandboxConfig(tier=m.SandboxTier.E2B_MICRO),
        "network": m.NetworkConfig(egress_mode=m.EgressMode.ISOLATED),
        "filesystem": m.FilesystemConfig(mode=m.FilesystemMode.READ_WRITE_EPHEMERAL),
        "resources": m.ResourceLimits(max_cpu_cores=1.0, max_memory_mb=512,
                                      max_run_duration_seconds=300),
        "permissions": m.PermissionsConfig(scopes=["tools:read"]),
    }
    return m.AgentCapability(**{**fields, **changes})


def test_agent_capability_table_and_rules() -> None:
    capability = _capability()
    assert capability.tools == [] and capability.metadata.environment is None
    assert validate(capability.model_dump(mode="json"), "agent_capability_v1") is True
    for field, bad in [("agent_id", ""), ("agent_name", "n" * 129),
                       ("capability_version", "one")]:
        with pytest.raises(ValidationError):
            _capability(**{field: bad})
    production = m.CapabilityMetadata(environment=m.Environment.PRODUCTION)
    with pytest.raises(ValidationError, match="sandbox tier 'none'"):
        _capability(sandbox=m.SandboxConfig(tier="none"), metadata=production)
    assert _capability(sandbox=m.SandboxConfig(tier="none")).sandbox.tier is m.SandboxTier.NONE
    with pytest.raises(ValidationError, match="pii_access=True"):
        _capability(permissions=m.PermissionsConfig(pii_access=True,
                                                    data_classifications=["internal"]))
    assert _capability(permissions=m.PermissionsConfig(
        pii_access=True, data_classifications=["restricted"])).permissions.pii_access


def test_network_and_sandbox_rules() -> None:
    with pytest.raises(ValidationError, match="allowlist_only"):
        m.NetworkConfig(egress_mode=m.EgressMode.ALLOWLIST_ONLY)
    rule = m.NetworkEgressRule(host="api.anthropic.com", ports=[443],
                               protocol=m.NetworkProtocol.HTTPS,
                               description="Anthropic API access")
    assert m.NetworkConfig(egress_mode="allowlist_only", egress_rules=[rule]).egress_rules
    with pytest.raises(ValidationError, match="docker_local"):
        m.SandboxConfig(tier="e2b_micro", image="python:3.12-slim")
    assert m.SandboxConfig(tier="docker_local", image="python:3.12-slim").image
