"""Pydantic models of the four canonical specs (seed 003), one module per schema.

Typed access after validation; every cross-field rule the JSON Schemas hold is enforced here
too, plus the rules JSON Schema cannot express (documented per module).
"""

from engine.specs.models.capability import (
    AgentCapability,
    CapabilityMetadata,
    EgressRule,
    FilesystemConfig,
    NetworkConfig,
    PermissionsConfig,
    ResourceLimits,
    SandboxConfig,
    ToolDeclaration,
)
from engine.specs.models.capsule import (
    CapsuleAgent,
    CapsuleEnvironment,
    CapsuleIntegrity,
    CapsuleOutcome,
    CapsuleRun,
    CapsuleStep,
    RunCapsule,
    StepCost,
    TokenUsage,
)
from engine.specs.models.enums import (
    CostEstimate,
    DataClassification,
    EgressMode,
    Environment,
    ErrorCategory,
    FilesystemMode,
    ModelProvider,
    NetworkProtocol,
    PiiHandling,
    RetryStrategy,
    RunStatus,
    RunTrigger,
    SandboxTier,
    SeverityLevel,
    SideEffect,
    StepType,
)
from engine.specs.models.error_taxonomy import AgentError, category_for
from engine.specs.models.tool_ir import (
    RateLimit,
    ToolCanonicalIR,
    ToolCapability,
    ToolMetadata,
    ToolSecurity,
    ToolSourceFormats,
)

MODEL_BY_SCHEMA: dict[str, type[ToolCanonicalIR | AgentError | RunCapsule | AgentCapability]] = {
    "agent_capability_v1": AgentCapability,
    "agent_error_taxonomy_v1": AgentError,
    "capsule_format_v1": RunCapsule,
    "tool_canonical_ir_v1": ToolCanonicalIR,
}
"""The root model of each canonical schema, by schema name."""

__all__ = [
    "MODEL_BY_SCHEMA",
    "AgentCapability",
    "AgentError",
    "CapabilityMetadata",
    "CapsuleAgent",
    "CapsuleEnvironment",
    "CapsuleIntegrity",
    "CapsuleOutcome",
    "CapsuleRun",
    "CapsuleStep",
    "CostEstimate",
    "DataClassification",
    "EgressMode",
    "EgressRule",
    "Environment",
    "ErrorCategory",
    "FilesystemConfig",
    "FilesystemMode",
    "ModelProvider",
    "NetworkConfig",
    "NetworkProtocol",
    "PermissionsConfig",
    "PiiHandling",
    "RateLimit",
    "ResourceLimits",
    "RetryStrategy",
    "RunCapsule",
    "RunStatus",
    "RunTrigger",
    "SandboxConfig",
    "SandboxTier",
    "SeverityLevel",
    "SideEffect",
    "StepCost",
    "StepType",
    "TokenUsage",
    "ToolCanonicalIR",
    "ToolCapability",
    "ToolDeclaration",
    "ToolMetadata",
    "ToolSecurity",
    "ToolSourceFormats",
    "category_for",
]
