"""`ToolCanonicalIR` and its parts (schema `tool_canonical_ir_v1`), with its cross-field rule:
a non-empty `deprecation_message` requires `deprecated=True`."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import Field, StrictStr, field_validator, model_validator

from engine.specs.models.common import (
    TOOL_NAME_PATTERN,
    Integer,
    NonEmpty,
    SemVer,
    SpecModel,
    StrictBool,
    Timestamp,
    UniqueList,
    Uri,
)
from engine.specs.models.enums import CostEstimate, DataClassification, PiiHandling, SideEffect

_SCHEMA_KEYS: dict[str, tuple[type, ...]] = {"type": (str,), "properties": (dict,)}


class RateLimit(SpecModel):
    """Per-agent rate limits for a tool."""

    requests_per_minute: Annotated[Integer, Field(ge=1)] | None = None
    requests_per_day: Annotated[Integer, Field(ge=1)] | None = None


class ToolSecurity(SpecModel):
    """Security metadata for a tool definition."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset({"rate_limit"})

    required_permissions: Annotated[list[NonEmpty], UniqueList] = Field(default_factory=list)
    data_classification: DataClassification | None = None
    pii_handling: PiiHandling = PiiHandling.NONE
    audit_required: StrictBool = False
    rate_limit: RateLimit | None = None


class ToolCapability(SpecModel):
    """A single discrete action a tool can perform."""

    action: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    domain: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    description: Annotated[StrictStr, Field(max_length=256)] | None = None
    side_effects: Annotated[list[SideEffect], UniqueList] = Field(default_factory=list)
    idempotent: StrictBool | None = None
    cost_estimate: CostEstimate | None = None
    timeout_seconds: Annotated[Integer, Field(ge=1, le=3600)] | None = None


class ToolSourceFormats(SpecModel):
    """Original provider-specific definitions before canonicalization."""

    openai: dict[str, Any] | None = None
    anthropic: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    langchain: dict[str, Any] | None = None


class ToolMetadata(SpecModel):
    """Registry and lifecycle metadata for a tool."""

    author: Annotated[StrictStr, Field(max_length=256)] | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    deprecated: StrictBool = False
    deprecation_message: Annotated[StrictStr, Field(max_length=512)] | None = None
    successor_tool: StrictStr | None = None
    registry_url: Uri | None = None


class ToolCanonicalIR(SpecModel):
    """Universal intermediate representation for an agent tool definition."""

    name: Annotated[StrictStr, Field(min_length=1, max_length=128, pattern=TOOL_NAME_PATTERN)]
    version: SemVer
    description: Annotated[StrictStr, Field(min_length=1, max_length=500)] | None = None
    tags: Annotated[list[Annotated[StrictStr, Field(min_length=1, max_length=64)]],
                    UniqueList] = Field(default_factory=list)
    capabilities: Annotated[list[ToolCapability], Field(min_length=1)]
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    security: ToolSecurity = Field(default_factory=ToolSecurity)
    source_formats: ToolSourceFormats = Field(default_factory=ToolSourceFormats)
    metadata: ToolMetadata = Field(default_factory=ToolMetadata)

    @field_validator("inputs", "outputs")
    @classmethod
    def _json_schema_shape(cls, value: dict[str, Any]) -> dict[str, Any]:
        """`type` is a string, `properties` an object, `required` a list of strings."""
        for key, kinds in _SCHEMA_KEYS.items():
            if key in value and not isinstance(value[key], kinds):
                raise ValueError(f"{key!r} must be a {'string' if kinds == (str,) else 'object'}")
        return value

    @field_validator("inputs")
    @classmethod
    def _required_names(cls, value: dict[str, Any]) -> dict[str, Any]:
        required = value.get("required", [])
        if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
            raise ValueError("'required' must be a list of strings")
        return value

    @model_validator(mode="after")
    def _deprecation_coherence(self) -> ToolCanonicalIR:
        if self.metadata.deprecation_message and not self.metadata.deprecated:
            raise ValueError("deprecation_message is set but deprecated is False. "
                             "Set deprecated=True if providing a deprecation_message.")
        return self
