"""`AgentCapability` and its parts (schema `agent_capability_v1`). Cross-field rules:
production agents do not use sandbox tier `none`; PII access needs a `confidential` or
`restricted` classification; `allowlist_only` egress needs a rule; `image` only with
tier `docker_local`."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import (
    Hostname,
    Integer,
    Number,
    SemVer,
    SpecModel,
    StrictBool,
    Timestamp,
    ToolName,
    Uri,
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


class SandboxConfig(SpecModel):
    tier: SandboxTier
    image: Annotated[StrictStr, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _image_needs_docker(self) -> SandboxConfig:
        if self.image is not None and self.tier is not SandboxTier.DOCKER_LOCAL:
            raise ValueError(f"image is only valid with tier 'docker_local', "
                             f"not {self.tier.value!r}")
        return self


class EgressRule(SpecModel):
    host: Hostname
    port: Annotated[Integer, Field(ge=1, le=65535)] | None = None
    protocol: NetworkProtocol = NetworkProtocol.HTTPS


class NetworkConfig(SpecModel):
    egress_mode: EgressMode
    egress_rules: tuple[EgressRule, ...] = ()

    @model_validator(mode="after")
    def _allowlist_needs_rules(self) -> NetworkConfig:
        if self.egress_mode is EgressMode.ALLOWLIST_ONLY and not self.egress_rules:
            raise ValueError("egress_mode 'allowlist_only' requires at least one egress_rule")
        return self


class FilesystemConfig(SpecModel):
    mode: FilesystemMode
    allowed_paths: tuple[Annotated[StrictStr, Field(min_length=1)], ...] = ()
    max_size_mb: Annotated[Integer, Field(ge=0)] | None = None


class ResourceLimits(SpecModel):
    max_memory_mb: Annotated[Integer, Field(ge=1, le=1_048_576)]
    max_cpu_cores: Annotated[Number, Field(gt=0, le=256)]
    max_runtime_seconds: Annotated[Integer, Field(ge=1, le=86400)]
    max_tokens: Annotated[Integer, Field(ge=1)] | None = None
    max_cost_usd: Annotated[Number, Field(ge=0)] | None = None


class PermissionsConfig(SpecModel):
    allowed_actions: tuple[StrictStr, ...] = ()
    pii_access: StrictBool = False
    data_classifications: tuple[DataClassification, ...] = ()
    requires_human_approval: StrictBool = False


class ToolDeclaration(SpecModel):
    name: ToolName
    version: SemVer | None = None
    required: StrictBool = True


class CapabilityMetadata(SpecModel):
    environment: Environment = Environment.DEVELOPMENT
    owner: StrictStr | None = None
    description: Annotated[StrictStr, Field(max_length=1024)] | None = None
    created_at: Timestamp | None = None
    documentation_url: Uri | None = None
    tags: tuple[StrictStr, ...] = ()


class AgentCapability(SpecModel):
    capability_version: SemVer
    agent_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    agent_name: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    sandbox: SandboxConfig
    network: NetworkConfig
    filesystem: FilesystemConfig
    resources: ResourceLimits
    permissions: PermissionsConfig
    tools: tuple[ToolDeclaration, ...] = ()
    metadata: CapabilityMetadata = CapabilityMetadata()

    @model_validator(mode="after")
    def _policy(self) -> AgentCapability:
        production = self.metadata.environment is Environment.PRODUCTION
        if production and self.sandbox.tier is SandboxTier.NONE:
            raise ValueError("production agents must not use sandbox tier 'none'")
        declared = set(self.permissions.data_classifications)
        if self.permissions.pii_access and not declared & PII_CLASSES:
            raise ValueError("pii_access requires 'confidential' or 'restricted' in "
                             "permissions.data_classifications")
        return self
