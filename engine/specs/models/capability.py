"""`AgentCapability` and its parts (schema `agent_capability_v1`). Cross-field rules:
production agents do not use sandbox tier `none`; PII access needs a `confidential` or
`restricted` classification; `allowlist_only` egress needs a rule; a sandbox `image` only with
tier `docker_local`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import (
    Integer,
    NonEmpty,
    Number,
    SemVer,
    SpecModel,
    StrictBool,
    Timestamp,
    UniqueList,
)
from engine.specs.models.enums import (
    DataClassification,
    EgressMode,
    Environment,
    FilesystemMode,
    NetworkProtocol,
    SandboxTier,
)

PII_CLASSES = frozenset({DataClassification.CONFIDENTIAL, DataClassification.RESTRICTED})


class SecretBinding(SpecModel):
    """A secret reference injected as an environment variable."""

    secret_name: NonEmpty
    env_var: NonEmpty


class SandboxConfig(SpecModel):
    """Sandbox environment configuration."""

    tier: SandboxTier
    image: StrictStr | None = None
    startup_timeout_seconds: Annotated[Integer, Field(ge=1, le=300)] = 30
    environment_variables: dict[str, StrictStr] = Field(default_factory=dict)
    secrets: list[SecretBinding] = Field(default_factory=list)

    @model_validator(mode="after")
    def _image_only_for_docker(self) -> SandboxConfig:
        if self.image and self.tier is not SandboxTier.DOCKER_LOCAL:
            raise ValueError("image is only applicable when tier is 'docker_local'.")
        return self


class NetworkEgressRule(SpecModel):
    """A single network egress allowlist rule."""

    host: NonEmpty
    ports: Annotated[list[Annotated[Integer, Field(ge=1, le=65535)]], Field(min_length=1)]
    protocol: NetworkProtocol
    description: Annotated[StrictStr, Field(max_length=256)] | None = None
    rate_limit_rps: Annotated[Integer, Field(ge=1)] | None = None


class NetworkConfig(SpecModel):
    """Network egress policy configuration."""

    egress_mode: EgressMode
    egress_rules: list[NetworkEgressRule] = Field(default_factory=list)
    dns_policy: Literal["default", "none", "cluster_first"] = "default"

    @model_validator(mode="after")
    def _allowlist_has_rules(self) -> NetworkConfig:
        if self.egress_mode is EgressMode.ALLOWLIST_ONLY and not self.egress_rules:
            raise ValueError("egress_rules must be non-empty when egress_mode is "
                             "'allowlist_only'.")
        return self


class FilesystemConfig(SpecModel):
    """Filesystem access configuration."""

    mode: FilesystemMode
    allowed_paths: list[StrictStr] = Field(default_factory=list)
    max_file_size_mb: Annotated[Integer, Field(ge=1, le=10240)] = 100
    max_total_storage_mb: Annotated[Integer, Field(ge=1, le=102400)] = 1024


class ResourceLimits(SpecModel):
    """Compute resource limits for an agent."""

    max_cpu_cores: Annotated[Number, Field(ge=0.1, le=64.0)]
    max_memory_mb: Annotated[Integer, Field(ge=64, le=131072)]
    max_run_duration_seconds: Annotated[Integer, Field(ge=1, le=86400)]
    max_concurrent_tool_calls: Annotated[Integer, Field(ge=1, le=100)] = 5
    max_llm_calls_per_run: Annotated[Integer, Field(ge=1, le=10000)] = 100
    max_tokens_per_run: Annotated[Integer, Field(ge=1000, le=100_000_000)] | None = None
    max_cost_usd_per_run: Annotated[Number, Field(ge=0.001, le=10000.0)] | None = None
    gpu_required: StrictBool = False


class PermissionsConfig(SpecModel):
    """Declared permission scopes for an agent."""

    scopes: Annotated[list[Annotated[StrictStr, Field(min_length=1, max_length=256)]],
                      UniqueList] = Field(default_factory=list)
    data_classifications: Annotated[list[DataClassification], UniqueList] = Field(
        default_factory=list)
    pii_access: StrictBool = False
    audit_all_runs: StrictBool = True


class ToolDeclaration(SpecModel):
    """A tool binding in a capability declaration."""

    tool_name: NonEmpty
    tool_version: SemVer
    capability_subset: list[StrictStr] = Field(default_factory=list)
    optional: StrictBool = False


class CapabilityMetadata(SpecModel):
    """Lifecycle and ownership metadata for a capability manifest."""

    owner_team: StrictStr | None = None
    approved_by: StrictStr | None = None
    approved_at: Timestamp | None = None
    review_required_at: Timestamp | None = None
    environment: Environment | None = None
    labels: dict[str, StrictStr] = Field(default_factory=dict)


class AgentCapability(SpecModel):
    """Full capability declaration for an agent."""

    capability_version: SemVer
    agent_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    agent_name: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    agent_version: SemVer | None = None
    description: Annotated[StrictStr, Field(max_length=1024)] | None = None
    sandbox: SandboxConfig
    network: NetworkConfig
    filesystem: FilesystemConfig
    resources: ResourceLimits
    permissions: PermissionsConfig
    tools: list[ToolDeclaration] = Field(default_factory=list)
    metadata: CapabilityMetadata = Field(default_factory=CapabilityMetadata)

    @model_validator(mode="after")
    def _production_sandbox(self) -> AgentCapability:
        if (self.metadata.environment is Environment.PRODUCTION
                and self.sandbox.tier is SandboxTier.NONE):
            raise ValueError("Production agents must not use sandbox tier 'none'. "
                             "Use e2b_micro or higher.")
        return self

    @model_validator(mode="after")
    def _pii_needs_classification(self) -> AgentCapability:
        declared = set(self.permissions.data_classifications)
        if self.permissions.pii_access and not declared & PII_CLASSES:
            raise ValueError("Agents with pii_access=True must declare at least "
                             "'confidential' in data_classifications.")
        return self
