"""Data compatibility with aumai-specs: its documents are valid here, and ours are valid there.

Forward: fully populated documents in the seed's shapes (every field the seed declares, times
as `datetime.utcnow().isoformat()` writes them) pass the schema and the model. Reverse: the
schemas admit nothing the seed's schemas do not (no unknown keys, `null` exactly where the seed
allows it), and each model has exactly the fields of its schema object.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.specs import load_schema, parse_spec, validate, validate_error
from engine.specs import models as m

NAIVE = "2026-03-01T09:30:00.123456"  # what datetime.utcnow().isoformat() gives
LATER = "2026-03-01T10:31:00+01:00"
SHA = "sha256:" + "ab" * 32

FULL: dict[str, dict[str, Any]] = {
    "tool_canonical_ir_v1": {
        "name": "fs.read-file", "version": "2.0.1", "description": "Read a file", "tags": ["fs"],
        "capabilities": [{"action": "read_file", "domain": "filesystem", "description": "read",
                          "side_effects": ["filesystem_read"], "idempotent": True,
                          "cost_estimate": "free", "timeout_seconds": 10}],
        "inputs": {"type": "object", "properties": {"path": {"type": "string"}},
                   "required": ["path"], "additionalProperties": False},
        "outputs": {"type": "object", "properties": {"text": {"type": "string"}}},
        "security": {"required_permissions": ["fs:read"], "data_classification": "internal",
                     "pii_handling": "read", "audit_required": True,
                     "rate_limit": {"requests_per_minute": 60, "requests_per_day": 1000}},
        "source_formats": {"openai": {"type": "function"}, "anthropic": {"name": "read"},
                           "mcp": {}, "langchain": {}},
        "metadata": {"author": "infra", "created_at": NAIVE, "updated_at": LATER,
                     "deprecated": True, "deprecation_message": "use fs.read",
                     "successor_tool": "fs.read", "registry_url": "https://tools.example/fs"},
    },
    "agent_error_taxonomy_v1": {
        "taxonomy_version": "1.2.0",
        "categories": [{"category_name": f"c{prefix}", "code_prefix": prefix,
                        "description": "d", "errors": [
                            {"code": prefix * 100 + 1, "name": f"E{prefix}_FIRST",
                             "description": "first", "severity": "info", "recoverable": False,
                             "retry_strategy": "human_escalation",
                             "example_message": "example"}]}
                       for prefix in range(1, 7)],
    },
    "capsule_format_v1": {
        "capsule_id": "capsule_01HZABCDEFGHIJKLMNOPQRSTUV", "schema_version": "1.0.0",
        "created_at": NAIVE,
        "agent": {"agent_id": "a", "agent_name": "A", "agent_version": "1.0.0",
                  "model": {"provider": "mistral", "model_id": "large", "model_version": "2",
                            "parameters": {"temperature": 0.1}},
                  "system_prompt_hash": SHA,
                  "tools_loaded": [{"tool_name": "t", "tool_version": "1.0.0",
                                    "tool_ir_hash": SHA}]},
        "run": {"run_id": "r", "started_at": NAIVE, "ended_at": LATER, "status": "timeout",
                "triggered_by": "scheduler", "parent_run_id": "p", "goal": "g", "tags": ["x"]},
        "execution_trace": [
            {"step_index": 0, "step_type": "llm_inference", "started_at": NAIVE,
             "ended_at": NAIVE, "duration_ms": 0, "input": "prompt", "output": {"k": 1},
             "tokens": {"input_tokens": 1, "output_tokens": 2, "cache_read_tokens": 3,
                        "cache_write_tokens": 4, "total_tokens": 3},
             "cost": {"input_cost_usd": 0.1, "output_cost_usd": 0, "tool_cost_usd": 0,
                      "total_cost_usd": 0.1},
             "error_code": 501, "error_message": "slow", "metadata": {"any": [1]}},
            {"step_index": 1, "step_type": "tool_call", "started_at": NAIVE, "ended_at": LATER,
             "tool_name": "t", "tool_call_id": "c", "input": None, "output": None},
        ],
        "environment": {"aumai_runtime_version": "1.0.0", "python_version": "3.12.1",
                        "os": "linux/amd64", "container_image": "sha256:abc",
                        "sandbox_tier": "docker_local", "network_policy": "isolated",
                        "extra": {"k": "v"}},
        "outcome": {"final_answer": {"answer": 42}, "structured_output": {"a": 1},
                    "total_tokens": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                    "total_cost_usd": 0.1, "total_steps": 2, "total_tool_calls": 1,
                    "errors_encountered": [501], "goal_achieved": False,
                    "confidence_score": 0.5},
        "integrity": {"capsule_hash": SHA, "signature": "c2ln", "signing_key_id": "k"},
    },
    "agent_capability_v1": {
        "capability_version": "1.0.0", "agent_id": "a", "agent_name": "A",
        "agent_version": "3.2.1", "description": "d",
        "sandbox": {"tier": "docker_local", "image": "python:3.12-slim",
                    "startup_timeout_seconds": 300, "environment_variables": {"A": "1"},
                    "secrets": [{"secret_name": "s", "env_var": "S"}]},
        "network": {"egress_mode": "allowlist_only", "dns_policy": "cluster_first",
                    "egress_rules": [{"host": "10.0.0.0/8", "ports": [1, 65535],
                                      "protocol": "tcp", "description": "d",
                                      "rate_limit_rps": 5}]},
        "filesystem": {"mode": "read_write_persistent", "allowed_paths": ["/tmp/"],
                       "max_file_size_mb": 10240, "max_total_storage_mb": 102400},
        "resources": {"max_cpu_cores": 64, "max_memory_mb": 131072,
                      "max_run_duration_seconds": 86400, "max_concurrent_tool_calls": 100,
                      "max_llm_calls_per_run": 10000, "max_tokens_per_run": 1000,
                      "max_cost_usd_per_run": 0.001, "gpu_required": True},
        "permissions": {"scopes": ["agents:spawn"], "data_classifications": ["restricted"],
                        "pii_access": True, "audit_all_runs": False},
        "tools": [{"tool_name": "t", "tool_version": "1.0.0", "capability_subset": ["a"],
                   "optional": True}],
        "metadata": {"owner_team": "o", "approved_by": "b", "approved_at": NAIVE,
                     "review_required_at": LATER, "environment": "production",
                     "labels": {"k": "v"}},
    },
}


@pytest.mark.parametrize("name", sorted(FULL))
def test_seed_shaped_documents_with_every_field_are_valid(name: str) -> None:
    document = FULL[name]
    assert validate(document, name) is True
    model = parse_spec(document, name)
    assert validate(model.model_dump(mode="json"), name) is True


def test_runtime_error_instance_with_every_field() -> None:
    error = {"code": 603, "category": "orchestration", "message": "m", "severity": "critical",
             "recoverable": False, "agent_id": "a", "run_id": "r", "step_index": 0,
             "timestamp": NAIVE, "context": {"k": "v"}, "cause": "c", "retry_after_seconds": 0}
    assert validate_error(error) is True
    assert m.AgentError.model_validate(error).model_dump(mode="json")["timestamp"] == (
        "2026-03-01T09:30:00.123456")


def test_quick_start_round_trip() -> None:
    """A model built in code dumps to a document its own schema accepts."""
    tool = m.ToolCanonicalIR(
        name="web_search", version="1.0.0",
        capabilities=[m.ToolCapability(action="search", domain="web",
                                       side_effects=[m.SideEffect.NETWORK_EGRESS],
                                       cost_estimate=m.CostEstimate.LOW)],
        inputs={"type": "object", "required": ["query"]}, outputs={"type": "object"},
        security=m.ToolSecurity(data_classification=m.DataClassification.PUBLIC),
    )
    assert validate(tool.model_dump(mode="json"), "tool_canonical_ir_v1") is True
    assert load_schema("tool_canonical_ir_v1")["title"] == "AumAI Tool Canonical IR"


def _objects(node: Any, pointer: str = "#") -> list[tuple[str, dict[str, Any]]]:
    """Every schema object that declares properties, with where it is."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if "properties" in node and node.get("type") == "object":
            found.append((pointer, node))
        for key, child in node.items():
            if key not in ("examples", "default"):
                found += _objects(child, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found += _objects(child, f"{pointer}/{index}")
    return found


def _allows_null(schema: dict[str, Any]) -> bool:
    options = schema.get("oneOf", [schema]) if "$ref" not in schema else [{"$ref": ""}]
    return any(option.get("type") == "null" for option in options)


NULLABLE = {("tool_canonical_ir_v1", "rate_limit"), ("capsule_format_v1", "final_answer")}
OPEN_OBJECTS = {"inputs", "outputs"}  # JSON Schemas of a tool's arguments: any keyword


@pytest.mark.parametrize("name", sorted(FULL))
def test_schemas_admit_no_unknown_keys_and_null_only_where_the_seed_does(name: str) -> None:
    schema = load_schema(name, layout="refs")
    nullable = set()
    for pointer, node in _objects(schema):
        if pointer.rsplit("/", 1)[-1] not in OPEN_OBJECTS:
            assert node.get("additionalProperties") is False, pointer
        for key, child in node["properties"].items():
            if isinstance(child, dict) and _allows_null(child):
                nullable.add((name, key))
    step_payloads = {("capsule_format_v1", "input"), ("capsule_format_v1", "output")}
    payload = load_schema("capsule_format_v1")["$defs"]["payload"]
    assert _allows_null(payload)
    assert nullable == {pair for pair in NULLABLE | step_payloads if pair[0] == name} - \
        step_payloads


MODEL_AT: dict[type[Any], tuple[str, str]] = {
    m.ToolCanonicalIR: ("tool_canonical_ir_v1", ""),
    m.ToolCapability: ("tool_canonical_ir_v1", "/$defs/capability"),
    m.ToolSecurity: ("tool_canonical_ir_v1", "/$defs/security"),
    m.ToolMetadata: ("tool_canonical_ir_v1", "/$defs/metadata"),
    m.ToolSourceFormats: ("tool_canonical_ir_v1", "/properties/source_formats"),
    m.RateLimit: ("tool_canonical_ir_v1", "/$defs/security/properties/rate_limit/oneOf/0"),
    m.AgentErrorTaxonomy: ("agent_error_taxonomy_v1", ""),
    m.TaxonomyCategory: ("agent_error_taxonomy_v1", "/$defs/category"),
    m.TaxonomyErrorEntry: ("agent_error_taxonomy_v1", "/$defs/error_entry"),
    m.AgentError: ("agent_error_taxonomy_v1", "/$defs/error_instance"),
    m.RunCapsule: ("capsule_format_v1", ""),
    m.CapsuleAgent: ("capsule_format_v1", "/$defs/agent"),
    m.ModelInfo: ("capsule_format_v1", "/$defs/agent/properties/model"),
    m.ToolBinding: ("capsule_format_v1", "/$defs/agent/properties/tools_loaded/items"),
    m.CapsuleRun: ("capsule_format_v1", "/$defs/run"),
    m.CapsuleStep: ("capsule_format_v1", "/$defs/step"),
    m.TokenUsage: ("capsule_format_v1", "/$defs/step/properties/tokens"),
    m.StepCost: ("capsule_format_v1", "/$defs/step/properties/cost"),
    m.CapsuleEnvironment: ("capsule_format_v1", "/$defs/environment"),
    m.CapsuleOutcome: ("capsule_format_v1", "/$defs/outcome"),
    m.CapsuleIntegrity: ("capsule_format_v1", "/properties/integrity"),
    m.AgentCapability: ("agent_capability_v1", ""),
    m.SandboxConfig: ("agent_capability_v1", "/$defs/sandbox"),
    m.SecretBinding: ("agent_capability_v1", "/$defs/sandbox/properties/secrets/items"),
    m.NetworkConfig: ("agent_capability_v1", "/$defs/network"),
    m.NetworkEgressRule: ("agent_capability_v1", "/$defs/egress_rule"),
    m.FilesystemConfig: ("agent_capability_v1", "/$defs/filesystem"),
    m.ResourceLimits: ("agent_capability_v1", "/$defs/resources"),
    m.PermissionsConfig: ("agent_capability_v1", "/$defs/permissions"),
    m.ToolDeclaration: ("agent_capability_v1", "/$defs/tool"),
    m.CapabilityMetadata: ("agent_capability_v1", "/$defs/metadata"),
}


@pytest.mark.parametrize("model", list(MODEL_AT), ids=lambda model: model.__name__)
def test_each_model_has_exactly_the_fields_of_its_schema_object(model: type[Any]) -> None:
    name, pointer = MODEL_AT[model]
    node: Any = load_schema(name)
    for part in filter(None, pointer.split("/")):
        node = node[int(part)] if isinstance(node, list) else node[part]
    assert set(model.model_fields) == set(node["properties"])
    assert set(node.get("required", ())) <= set(model.model_fields)
