"""`ToolCanonicalIR` and its parts (schema `tool_canonical_ir_v1`), with its cross-field rule:
`deprecation_message` requires `deprecated=True`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import (
    Integer,
    SemVer,
    SpecModel,
    StrictBool,
    Timestamp,
    ToolName,
    Uri,
)
from engine.specs.models.enums import CostEstimate, DataClassification, PiiHandling, SideEffect


class ToolCapability(SpecModel):
    action: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    domain: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    description: Annotated[StrictStr, Field(max_length=256)] | None = None
    side_effects: tuple[SideEffect, ...] = ()
    idempotent: StrictBool | None = None
    cost_estimate: CostEstimate | None = None
    timeout_seconds: Annotated[Integer, Field(ge=1, le=3600)] | None = None


class RateLimit(SpecModel):
    """At most `requests` calls per `period_seconds`, with an optional burst allowance."""

    requests: Annotated[Integer, Field(ge=1)]
    period_seconds: Annotated[Integer, Field(ge=1, le=86400)]
    burst: Annotated[Integer, Field(ge=1)] | None = None


class ToolSecurity(SpecModel):
    required_permissions: tuple[StrictStr, ...] = ()
    data_classification: DataClassification | None = None
    pii_handling: PiiHandling = PiiHandling.NONE
    audit_required: StrictBool = False
    rate_limit: RateLimit | None = None


class ToolSourceFormats(SpecModel):
    """The tool's original definitions, verbatim, per function-calling format."""

    mcp: dict[str, Any] | None = None
    openai: dict[str, Any] | None = None
    anthropic: dict[str, Any] | None = None
    langchain: dict[str, Any] | None = None


class ToolMetadata(SpecModel):
    author: StrictStr | None = None
    homepage: Uri | None = None
    license: StrictStr | None = None
    created_at: Timestamp | None = None
    updated_at: Timestamp | None = None
    deprecated: StrictBool = False
    deprecation_message: Annotated[StrictStr, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _message_needs_deprecated(self) -> ToolMetadata:
        if self.deprecation_message is not None and not self.deprecated:
            raise ValueError("deprecation_message requires deprecated=True")
        return self


class ToolCanonicalIR(SpecModel):
    name: ToolName
    version: SemVer
    description: Annotated[StrictStr, Field(max_length=500)] | None = None
    tags: tuple[StrictStr, ...] = ()
    capabilities: Annotated[tuple[ToolCapability, ...], Field(min_length=1)]
    inputs: dict[str, Any]
    outputs: dict[str, Any]
    security: ToolSecurity = ToolSecurity()
    source_formats: ToolSourceFormats = ToolSourceFormats()
    metadata: ToolMetadata = ToolMetadata()
