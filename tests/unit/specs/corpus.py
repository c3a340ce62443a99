"""Documents for the canonical schemas: a valid base per schema and mutations of it.

Each case says whether the document is valid (for `parse_spec`: schema, then model), and
which side alone rejects it when the two differ on purpose: `model_only` for a rule JSON
Schema cannot express; `schema_only` for what the models allow Python callers (`None` for an
absent optional field, a default for a field every document must spell out).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

DELETE = object()

TIME = "2024-05-01T12:00:00Z"
BASES: dict[str, dict[str, Any]] = {
    "agent_error_taxonomy_v1": {
        "taxonomy_version": "1.0.0",
        "categories": [
            {"category_name": "tool_execution", "code_prefix": 2,
             "description": "Tools that fail", "errors": [
                 {"code": 201, "name": "TOOL_TIMEOUT", "description": "A tool timed out",
                  "severity": "error", "recoverable": True, "retry_strategy": "immediate"},
                 {"code": 202, "name": "TOOL_CRASHED", "description": "A tool raised",
                  "severity": "critical", "recoverable": False}]},
            {"category_name": "orchestration", "code_prefix": 6,
             "description": "Handoffs", "errors": [
                 {"code": 605, "name": "NO_ROUTE", "description": "Nobody takes it",
                  "severity": "warning", "recoverable": True,
                  "example_message": "no agent for 'x'"}]},
        ],
    },
    "tool_canonical_ir_v1": {
        "name": "web.search", "version": "1.0.0", "description": "Search the web",
        "tags": ["web"],
        "capabilities": [{"action": "search", "domain": "web", "side_effects": ["network_egress"],
                          "cost_estimate": "low", "timeout_seconds": 30}],
        "inputs": {"type": "object", "required": ["query"]}, "outputs": {"type": "object"},
        "security": {"required_permissions": ["web:read"], "rate_limit": None},
        "source_formats": {"openai": {"type": "function"}},
        "metadata": {"registry_url": "https://example.com/search", "created_at": TIME},
    },
    "capsule_format_v1": {
        "capsule_id": "capsule_" + "A" * 26, "schema_version": "1.0.0",
        "created_at": "2024-05-01T12:00:05Z",
        "agent": {"agent_id": "triage", "agent_name": "Triage", "agent_version": "1.0.0",
                  "model": {"provider": "openai", "model_id": "gpt-4o"},
                  "tools_loaded": [{"tool_name": "lookup", "tool_version": "1.2.3"}]},
        "run": {"run_id": "r1", "started_at": TIME, "ended_at": "2024-05-01T12:00:04Z",
                "status": "success", "triggered_by": "test", "tags": ["a"]},
        "execution_trace": [
            {"step_index": 0, "step_type": "tool_call", "tool_name": "lookup",
             "started_at": TIME, "ended_at": "2024-05-01T12:00:01Z", "input": {"q": 1}},
            {"step_index": 1, "step_type": "tool_result", "tool_name": "lookup",
             "started_at": "2024-05-01T12:00:01Z", "ended_at": "2024-05-01T12:00:02Z",
             "output": None, "tokens": {"input_tokens": 5, "output_tokens": 5,
                                        "total_tokens": 10}},
        ],
        "environment": {"aumai_runtime_version": "0.1.0", "python_version": "3.11.9",
                        "sandbox_tier": "none", "extra": {"region": "eu"}},
        "outcome": {"final_answer": "done", "errors_encountered": [201],
                    "total_tokens": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}},
    },
    "agent_capability_v1": {
        "capability_version": "1.0.0", "agent_id": "billing", "agent_name": "Billing",
        "sandbox": {"tier": "e2b_micro"},
        "network": {"egress_mode": "allowlist_only",
                    "egress_rules": [{"host": "api.example.com", "ports": [443],
                                      "protocol": "https"}]},
        "filesystem": {"mode": "read_only", "allowed_paths": ["/data/"]},
        "resources": {"max_cpu_cores": 0.5, "max_memory_mb": 512,
                      "max_run_duration_seconds": 60},
        "permissions": {"scopes": ["tools:read"], "pii_access": True,
                        "data_classifications": ["restricted"]},
        "tools": [{"tool_name": "lookup", "tool_version": "1.0.0"}],
        "metadata": {"environment": "production", "approved_at": TIME},
    },
}


@dataclass(frozen=True)
class Case:
    schema: str
    name: str
    document: dict[str, Any]
    valid: bool
    model_only: bool = False
    schema_only: bool = False


def mutate(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of `base` with `{"a.0.b": value}` changes applied (DELETE removes a key)."""
    document = copy.deepcopy(base)
    for dotted, value in changes.items():
        *parents, last = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        target: Any = document
        for part in parents:
            target = target[part]
        if value is DELETE:
            del target[last]
        else:
            target[last] = value
    return document


def _cases(schema: str, rows: list[tuple[str, dict[str, Any], bool]],
           model_only: tuple[str, ...] = (), schema_only: tuple[str, ...] = ()) -> list[Case]:
    base = BASES[schema]
    return [Case(schema, "base", base, True)] + [
        Case(schema, name, mutate(base, changes), valid, name in model_only,
             name in schema_only)
        for name, changes, valid in rows
    ]


ERROR_ROWS = [
    ("rule-code-outside-prefix", {"categories.0.errors.0.code": 301}, False),
    ("rule-code-outside-prefix-6", {"categories.1.errors.0.code": 599}, False),
    ("rule-duplicate-code", {"categories.0.errors.1.code": 201}, False),
    ("bad-name-case", {"categories.0.errors.0.name": "ToolTimeout"}, False),
    ("one-letter-name", {"categories.0.errors.0.name": "T"}, False),
    ("bad-retry", {"categories.0.errors.0.retry_strategy": "later"}, False),
    ("missing-recoverable", {"categories.0.errors.0.recoverable": DELETE}, False),
    ("prefix-seven", {"categories.0.code_prefix": 7}, False),
    ("no-categories", {"categories": []}, False),
    ("no-errors", {"categories.0.errors": []}, False),
    ("empty-category-name", {"categories.0.category_name": ""}, False),
    ("long-example", {"categories.1.errors.0.example_message": "x" * 257}, False),
    ("bad-version", {"taxonomy_version": "1.0"}, False),
    ("code-integral-float", {"categories.0.errors.0.code": 201.0}, True),
    ("code-bool", {"categories.0.errors.0.code": True}, False),
    ("code-string", {"categories.0.errors.0.code": "201"}, False),
    ("unknown-field", {"colour": "red"}, False),
    ("null-example", {"categories.1.errors.0.example_message": None}, False),
]
ERROR_MODEL_ONLY = ("rule-duplicate-code",)
ERROR_SCHEMA_ONLY = ("null-example",)

TOOL_ROWS = [
    ("rule-deprecation-without-flag", {"metadata.deprecation_message": "use v2"}, False),
    ("rule-deprecation-flag-false",
     {"metadata.deprecation_message": "use v2", "metadata.deprecated": False}, False),
    ("deprecation-with-flag",
     {"metadata.deprecation_message": "use v2", "metadata.deprecated": True}, True),
    ("empty-deprecation-message", {"metadata.deprecation_message": ""}, True),
    ("deprecated-without-message", {"metadata.deprecated": True}, True),
    ("bad-registry-uri", {"metadata.registry_url": "not a uri"}, False),
    ("naive-created-at", {"metadata.created_at": "2024-05-01T12:00:00"}, True),
    ("bad-updated-at", {"metadata.updated_at": "yesterday"}, False),
    ("no-capabilities", {"capabilities": []}, False),
    ("bad-name", {"name": "1tool"}, False),
    ("long-name", {"name": "t" * 129}, False),
    ("bad-version", {"version": "1.0"}, False),
    ("prerelease-version", {"version": "2.0.0-rc.1"}, False),
    ("timeout-too-long", {"capabilities.0.timeout_seconds": 3601}, False),
    ("bad-side-effect", {"capabilities.0.side_effects": ["teleport"]}, False),
    ("repeated-side-effect",
     {"capabilities.0.side_effects": ["email_send", "email_send"]}, False),
    ("repeated-tag", {"tags": ["a", "a"]}, False),
    ("empty-description", {"description": ""}, False),
    ("rate-limit", {"security.rate_limit": {"requests_per_minute": 5}}, True),
    ("rate-limit-zero", {"security.rate_limit": {"requests_per_day": 0}}, False),
    ("rate-limit-unknown", {"security.rate_limit": {"requests": 5}}, False),
    ("inputs-not-object", {"inputs": []}, False),
    ("inputs-type-number", {"inputs.type": 5}, False),
    ("inputs-required-not-strings", {"inputs.required": [1]}, False),
    ("outputs-properties-list", {"outputs.properties": []}, False),
    ("source-format-null", {"source_formats.openai": None}, False),
    ("null-description", {"description": None}, False),
]
TOOL_SCHEMA_ONLY = ("source-format-null", "null-description")

CAPSULE_ROWS = [
    ("rule-tool-name-on-llm-step", {"execution_trace.0.step_type": "llm_inference"}, False),
    ("empty-tool-name-on-llm-step",
     {"execution_trace.0.step_type": "llm_inference", "execution_trace.0.tool_name": ""}, True),
    ("rule-step-ends-before-start",
     {"execution_trace.0.ended_at": "2024-05-01T11:59:59Z"}, False),
    ("rule-run-ends-before-start", {"run.ended_at": "2024-05-01T11:00:00Z"}, False),
    ("rule-trace-not-contiguous", {"execution_trace.1.step_index": 2}, False),
    ("rule-trace-not-zero-based",
     {"execution_trace.0.step_index": 1, "execution_trace.1.step_index": 2}, False),
    ("rule-total-below-parts", {"execution_trace.1.tokens.total_tokens": 9}, False),
    ("zero-total-tokens", {"execution_trace.1.tokens.total_tokens": 0}, True),
    ("failure-without-code", {"run.status": "failure", "outcome.errors_encountered": []}, True),
    ("naive-times", {"run.started_at": "2024-05-01T12:00:00",
                     "run.ended_at": "2024-05-01T12:00:04"}, True),
    ("mixed-naive-and-aware", {"run.started_at": "2024-05-01T12:00:00"}, True),
    ("bad-capsule-id", {"capsule_id": "capsule_short"}, False),
    ("bad-schema-version", {"schema_version": "1.0.1"}, False),
    ("bad-created-at", {"created_at": "2024-05-01"}, False),
    ("epoch-created-at", {"created_at": 1714564800}, False),
    ("empty-trace", {"execution_trace": []}, True),
    ("missing-trace", {"execution_trace": DELETE}, False),
    ("bad-step-type", {"execution_trace.0.step_type": "dreaming"}, False),
    ("step-error-code-range", {"execution_trace.0.error_code": 700}, False),
    ("step-input-list", {"execution_trace.0.input": [1]}, False),
    ("bad-capsule-hash", {"integrity": {"capsule_hash": "abc"}}, False),
    ("good-capsule-hash", {"integrity": {"capsule_hash": "sha256:" + "0" * 64,
                                         "signing_key_id": "k1"}}, True),
    ("negative-tokens", {"execution_trace.1.tokens.input_tokens": -1}, False),
    ("outcome-cache-tokens", {"outcome.total_tokens.cache_read_tokens": 0}, False),
    ("missing-final-answer", {"outcome": {"total_steps": 2}}, False),
    ("null-final-answer", {"outcome.final_answer": None}, True),
    ("confidence-above-one", {"outcome.confidence_score": 1.5}, False),
    ("missing-model", {"agent.model": DELETE}, False),
    ("bad-provider", {"agent.model.provider": "acme"}, False),
    ("bad-agent-version", {"agent.agent_version": "v1"}, False),
    ("bad-tool-version", {"agent.tools_loaded.0.tool_version": "1"}, False),
    ("bad-prompt-hash", {"agent.system_prompt_hash": "sha256:xyz"}, False),
    ("bad-python-version", {"environment.python_version": "3.11"}, False),
    ("extra-not-string", {"environment.extra.region": 1}, False),
    ("repeated-run-tag", {"run.tags": ["a", "a"]}, False),
    ("missing-status", {"run.status": DELETE}, False),
    ("empty-integrity", {"integrity": {}}, True),
    ("null-parent-run", {"run.parent_run_id": None}, False),
]
CAPSULE_MODEL_ONLY = ("rule-step-ends-before-start", "rule-run-ends-before-start",
                      "rule-trace-not-contiguous", "rule-trace-not-zero-based",
                      "rule-total-below-parts")
CAPSULE_SCHEMA_ONLY = ("missing-trace", "null-parent-run")

CAPABILITY_ROWS = [
    ("rule-production-without-sandbox", {"sandbox.tier": "none"}, False),
    ("staging-without-sandbox", {"sandbox.tier": "none", "metadata.environment": "staging"},
     True),
    ("no-metadata-without-sandbox", {"sandbox.tier": "none", "metadata": DELETE}, True),
    ("rule-pii-without-classification", {"permissions.data_classifications": ["public"]},
     False),
    ("rule-pii-no-classifications", {"permissions.data_classifications": DELETE}, False),
    ("no-pii-public", {"permissions": {"scopes": [], "pii_access": False,
                                       "data_classifications": ["public"]}}, True),
    ("rule-allowlist-without-rules", {"network.egress_rules": []}, False),
    ("rule-allowlist-rules-missing", {"network.egress_rules": DELETE}, False),
    ("isolated-without-rules", {"network": {"egress_mode": "isolated"}}, True),
    ("rule-image-without-docker", {"sandbox": {"tier": "e2b_micro", "image": "py:3.11"}},
     False),
    ("empty-image-without-docker", {"sandbox": {"tier": "e2b_micro", "image": ""}}, True),
    ("image-with-docker", {"sandbox": {"tier": "docker_local", "image": "py:3.11"}}, True),
    ("wildcard-host", {"network.egress_rules.0.host": "*.example.com"}, True),
    ("empty-host", {"network.egress_rules.0.host": ""}, False),
    ("bad-port", {"network.egress_rules.0.ports": [70000]}, False),
    ("no-ports", {"network.egress_rules.0.ports": []}, False),
    ("missing-protocol", {"network.egress_rules.0.protocol": DELETE}, False),
    ("bad-dns-policy", {"network.dns_policy": "google"}, False),
    ("cpu-below-minimum", {"resources.max_cpu_cores": 0.05}, False),
    ("int-cpu", {"resources.max_cpu_cores": 2}, True),
    ("memory-below-minimum", {"resources.max_memory_mb": 32}, False),
    ("string-memory", {"resources.max_memory_mb": "512"}, False),
    ("tokens-above-maximum", {"resources.max_tokens_per_run": 100_000_001}, False),
    ("bool-pii-string", {"permissions.pii_access": "yes"}, False),
    ("repeated-scope", {"permissions.scopes": ["a", "a"]}, False),
    ("missing-scopes", {"permissions.scopes": DELETE}, False),
    ("bad-tool-version", {"tools": [{"tool_name": "t", "tool_version": "v1"}]}, False),
    ("tool-without-version", {"tools": [{"tool_name": "t"}]}, False),
    ("secret", {"sandbox.secrets": [{"secret_name": "s", "env_var": "S"}]}, True),
    ("empty-secret-name", {"sandbox.secrets": [{"secret_name": "", "env_var": "S"}]}, False),
    ("labels-not-strings", {"metadata.labels": {"a": 1}}, False),
    ("bad-approved-at", {"metadata.approved_at": "last week"}, False),
    ("unknown-field", {"sandbox.gpu": True}, False),
    ("null-agent-version", {"agent_version": None}, False),
]
CAPABILITY_SCHEMA_ONLY = ("missing-scopes", "null-agent-version")

CASES: list[Case] = (
    _cases("agent_error_taxonomy_v1", ERROR_ROWS, ERROR_MODEL_ONLY, ERROR_SCHEMA_ONLY)
    + _cases("tool_canonical_ir_v1", TOOL_ROWS, (), TOOL_SCHEMA_ONLY)
    + _cases("capsule_format_v1", CAPSULE_ROWS, CAPSULE_MODEL_ONLY, CAPSULE_SCHEMA_ONLY)
    + _cases("agent_capability_v1", CAPABILITY_ROWS, (), CAPABILITY_SCHEMA_ONLY)
)
