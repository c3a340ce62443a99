"""Documents for the canonical schemas: a valid base per schema and mutations of it.

Each case says whether it is valid, and `model_only` when the rule it breaks cannot be
written in JSON Schema (the schema then accepts it and only the model rejects it).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

DELETE = object()

BASES: dict[str, dict[str, Any]] = {
    "agent_error_taxonomy_v1": {
        "code": 201, "category": "tool_execution", "message": "tool timed out",
        "severity": "error", "timestamp": "2024-05-01T12:00:00Z",
    },
    "tool_canonical_ir_v1": {
        "name": "web.search", "version": "1.0.0",
        "capabilities": [{"action": "search", "domain": "web"}],
        "inputs": {"type": "object"}, "outputs": {"type": "object"},
        "metadata": {"homepage": "https://example.com/search"},
    },
    "capsule_format_v1": {
        "capsule_id": "capsule_" + "A" * 26, "schema_version": "1.0.0",
        "created_at": "2024-05-01T12:00:05Z",
        "agent": {"agent_id": "triage", "agent_name": "Triage"},
        "run": {"run_id": "r1", "trigger": "test", "started_at": "2024-05-01T12:00:00Z",
                "ended_at": "2024-05-01T12:00:04Z"},
        "execution_trace": [
            {"step_index": 0, "step_type": "tool_call", "tool_name": "lookup",
             "started_at": "2024-05-01T12:00:00Z", "ended_at": "2024-05-01T12:00:01Z"},
            {"step_index": 1, "step_type": "tool_result", "tool_name": "lookup",
             "started_at": "2024-05-01T12:00:01Z", "ended_at": "2024-05-01T12:00:02Z"},
        ],
        "environment": {"environment": "staging", "sandbox_tier": "none"},
        "outcome": {"status": "success"},
    },
    "agent_capability_v1": {
        "capability_version": "1.0.0", "agent_id": "billing", "agent_name": "Billing",
        "sandbox": {"tier": "e2b_micro"},
        "network": {"egress_mode": "allowlist_only",
                    "egress_rules": [{"host": "api.example.com", "port": 443}]},
        "filesystem": {"mode": "read_only"},
        "resources": {"max_memory_mb": 512, "max_cpu_cores": 0.5, "max_runtime_seconds": 60},
        "permissions": {"pii_access": True, "data_classifications": ["restricted"]},
        "metadata": {"environment": "production",
                     "documentation_url": "https://example.com/billing"},
    },
}


@dataclass(frozen=True)
class Case:
    schema: str
    name: str
    document: dict[str, Any]
    valid: bool
    model_only: bool = False


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
           model_only: tuple[str, ...] = ()) -> list[Case]:
    base = BASES[schema]
    return [Case(schema, "base", base, True)] + [
        Case(schema, name, mutate(base, changes), valid, name in model_only)
        for name, changes, valid in rows
    ]


ERROR_ROWS = [
    ("every-category-1xx", {"code": 150, "category": "planning"}, True),
    ("every-category-6xx", {"code": 699, "category": "orchestration"}, True),
    ("rule-category-mismatch", {"code": 301, "category": "planning"}, False),
    ("rule-category-mismatch-6xx", {"code": 600, "category": "resource"}, False),
    ("code-too-low", {"code": 99}, False),
    ("code-not-int", {"code": "201"}, False),
    ("code-bool", {"code": True}, False),
    ("code-integral-float", {"code": 201.0}, True),
    ("code-fractional", {"code": 201.5}, False),
    ("retry-after-integral-float", {"retry_after_seconds": 5.0}, True),
    ("missing-message", {"message": DELETE}, False),
    ("empty-message", {"message": ""}, False),
    ("bad-severity", {"severity": "fatal"}, False),
    ("date-only-timestamp", {"timestamp": "2024-05-01"}, False),
    ("naive-timestamp", {"timestamp": "2024-05-01T12:00:00"}, False),
    ("epoch-timestamp", {"timestamp": 1714564800}, False),
    ("context-non-string", {"context": {"a": 1}}, False),
    ("unknown-field", {"colour": "red"}, False),
    ("negative-step", {"step_index": -1}, False),
    ("nulls-allowed", {"agent_id": None, "timestamp": None, "cause": None}, True),
]

TOOL_ROWS = [
    ("rule-deprecation-without-flag", {"metadata.deprecation_message": "use v2"}, False),
    ("rule-deprecation-flag-false",
     {"metadata.deprecation_message": "use v2", "metadata.deprecated": False}, False),
    ("deprecation-with-flag",
     {"metadata.deprecation_message": "use v2", "metadata.deprecated": True}, True),
    ("deprecated-without-message", {"metadata.deprecated": True}, True),
    ("bad-homepage-uri", {"metadata.homepage": "not a uri"}, False),
    ("relative-homepage-uri", {"metadata.homepage": "/docs/search"}, False),
    ("bad-updated-at", {"metadata.updated_at": "yesterday"}, False),
    ("no-capabilities", {"capabilities": []}, False),
    ("bad-name", {"name": "1tool"}, False),
    ("bad-version", {"version": "1.0"}, False),
    ("prerelease-version", {"version": "2.0.0-rc.1"}, True),
    ("timeout-too-long", {"capabilities.0.timeout_seconds": 3601}, False),
    ("bad-side-effect", {"capabilities.0.side_effects": ["teleport"]}, False),
    ("rate-limit", {"security": {"rate_limit": {"requests": 5, "period_seconds": 1}}}, True),
    ("rate-limit-zero", {"security": {"rate_limit": {"requests": 0, "period_seconds": 1}}},
     False),
    ("inputs-not-object", {"inputs": []}, False),
]

CAPSULE_ROWS = [
    ("rule-tool-name-on-llm-step", {"execution_trace.0.step_type": "llm_inference"}, False),
    ("rule-step-ends-before-start",
     {"execution_trace.0.ended_at": "2024-05-01T11:59:59Z"}, False),
    ("rule-run-ends-before-start", {"run.ended_at": "2024-05-01T11:00:00Z"}, False),
    ("rule-trace-not-contiguous", {"execution_trace.1.step_index": 2}, False),
    ("rule-trace-not-zero-based",
     {"execution_trace.0.step_index": 1, "execution_trace.1.step_index": 2}, False),
    ("rule-failure-without-code", {"outcome": {"status": "failure"}}, False),
    ("failure-with-code", {"outcome": {"status": "failure", "error_code": 503}}, True),
    ("no-tool-name-on-llm-step",
     {"execution_trace.0.step_type": "llm_inference", "execution_trace.0.tool_name": None},
     True),
    ("bad-capsule-id", {"capsule_id": "capsule_short"}, False),
    ("bad-schema-version", {"schema_version": "1.0.1"}, False),
    ("bad-created-at", {"created_at": "2024-05-01 12:00"}, False),
    ("empty-trace", {"execution_trace": []}, True),
    ("bad-step-type", {"execution_trace.0.step_type": "dreaming"}, False),
    ("step-error-code-range", {"execution_trace.0.error_code": 700}, False),
    ("bad-digest", {"integrity": {"algorithm": "sha256", "digest": "abc"}}, False),
    ("good-digest", {"integrity": {"algorithm": "sha256", "digest": "0" * 64}}, True),
    ("negative-tokens",
     {"execution_trace.0.tokens": {"input_tokens": -1, "output_tokens": 0}}, False),
    ("missing-outcome", {"outcome": DELETE}, False),
]
CAPSULE_MODEL_ONLY = ("rule-step-ends-before-start", "rule-run-ends-before-start",
                      "rule-trace-not-contiguous", "rule-trace-not-zero-based")

CAPABILITY_ROWS = [
    ("rule-production-without-sandbox", {"sandbox.tier": "none"}, False),
    ("staging-without-sandbox", {"sandbox.tier": "none", "metadata.environment": "staging"},
     True),
    ("no-metadata-without-sandbox", {"sandbox.tier": "none", "metadata": DELETE}, True),
    ("rule-pii-without-classification", {"permissions.data_classifications": ["public"]},
     False),
    ("rule-pii-no-classifications", {"permissions.data_classifications": DELETE}, False),
    ("no-pii-public", {"permissions": {"pii_access": False,
                                       "data_classifications": ["public"]}}, True),
    ("rule-allowlist-without-rules", {"network.egress_rules": []}, False),
    ("rule-allowlist-rules-missing", {"network.egress_rules": DELETE}, False),
    ("isolated-without-rules", {"network": {"egress_mode": "isolated"}}, True),
    ("rule-image-without-docker", {"sandbox": {"tier": "e2b_micro", "image": "py:3.11"}},
     False),
    ("image-with-docker", {"sandbox": {"tier": "docker_local", "image": "py:3.11"}}, True),
    ("bad-host", {"network.egress_rules.0.host": "not a host!"}, False),
    ("bad-port", {"network.egress_rules.0.port": 70000}, False),
    ("bad-doc-url", {"metadata.documentation_url": "example dot com"}, False),
    ("zero-cpu", {"resources.max_cpu_cores": 0}, False),
    ("int-cpu", {"resources.max_cpu_cores": 2}, True),
    ("string-memory", {"resources.max_memory_mb": "512"}, False),
    ("bool-pii-string", {"permissions.pii_access": "yes"}, False),
    ("bad-tool-version", {"tools": [{"name": "t", "version": "v1"}]}, False),
    ("unknown-field", {"sandbox.gpu": True}, False),
]

CASES: list[Case] = (
    _cases("agent_error_taxonomy_v1", ERROR_ROWS)
    + _cases("tool_canonical_ir_v1", TOOL_ROWS)
    + _cases("capsule_format_v1", CAPSULE_ROWS, CAPSULE_MODEL_ONLY)
    + _cases("agent_capability_v1", CAPABILITY_ROWS)
)
