"""`RunCapsule` and its parts (schema `capsule_format_v1`). Cross-field rules: a non-empty
`tool_name` only on tool_call/tool_result steps; and, beyond what JSON Schema can express,
`ended_at` not before `started_at` (steps and run), trace indices 0-based and contiguous, a
non-zero `total_tokens` not below `input_tokens + output_tokens`."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StrictStr, field_serializer, model_validator

from engine.specs.models.common import (
    Integer,
    NonEmpty,
    Number,
    SemVer,
    Sha256,
    SpecModel,
    StrictBool,
    Timestamp,
    UniqueList,
)
from engine.specs.models.enums import (
    EgressMode,
    ModelProvider,
    RunStatus,
    RunTrigger,
    SandboxTier,
    StepType,
)

ErrorCode = Annotated[Integer, Field(ge=100, le=699)]
Count = Annotated[Integer, Field(ge=0)]
Usd = Annotated[Number, Field(ge=0)]
TOOL_STEPS = frozenset({StepType.TOOL_CALL, StepType.TOOL_RESULT})
CACHE_FIELDS = frozenset({"cache_read_tokens", "cache_write_tokens"})


def _comparable(value: datetime) -> datetime:
    """Naive times read as UTC so naive and aware ones compare."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _check_order(started_at: datetime, ended_at: datetime, what: str) -> None:
    if _comparable(ended_at) < _comparable(started_at):
        raise ValueError(f"ended_at ({ended_at}) must not be before started_at "
                         f"({started_at}) for {what}.")


class TokenUsage(SpecModel):
    """Token usage for an LLM inference step."""

    input_tokens: Count = 0
    output_tokens: Count = 0
    cache_read_tokens: Count = 0
    cache_write_tokens: Count = 0
    total_tokens: Count = 0

    @model_validator(mode="after")
    def _total_coherence(self) -> TokenUsage:
        computed = self.input_tokens + self.output_tokens
        if self.total_tokens != 0 and self.total_tokens < computed:
            raise ValueError(f"total_tokens ({self.total_tokens}) is less than "
                             f"input_tokens + output_tokens ({computed}).")
        return self


class StepCost(SpecModel):
    """Cost attribution for a single execution step."""

    input_cost_usd: Usd = 0.0
    output_cost_usd: Usd = 0.0
    tool_cost_usd: Usd = 0.0
    total_cost_usd: Usd = 0.0


class CapsuleStep(SpecModel):
    """A single step in the agent's execution trace."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset({"input", "output"})

    step_index: Count
    step_type: StepType
    started_at: Timestamp
    ended_at: Timestamp
    duration_ms: Count | None = None
    input: dict[str, Any] | StrictStr | None = None
    output: dict[str, Any] | StrictStr | None = None
    tokens: TokenUsage | None = None
    cost: StepCost | None = None
    tool_name: StrictStr | None = None
    tool_call_id: StrictStr | None = None
    error_code: ErrorCode | None = None
    error_message: StrictStr | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> CapsuleStep:
        _check_order(self.started_at, self.ended_at, f"step {self.step_index}")
        if self.tool_name and self.step_type not in TOOL_STEPS:
            raise ValueError(f"tool_name is only valid for tool_call/tool_result steps, "
                             f"not '{self.step_type.value}'.")
        return self


class ModelInfo(SpecModel):
    """Model identity and inference parameters."""

    provider: ModelProvider
    model_id: NonEmpty
    model_version: StrictStr | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)


class ToolBinding(SpecModel):
    """A tool loaded by the agent at run time."""

    tool_name: NonEmpty
    tool_version: SemVer
    tool_ir_hash: Sha256 | None = None


class CapsuleAgent(SpecModel):
    """Agent identity and configuration recorded in a capsule."""

    agent_id: NonEmpty
    agent_name: NonEmpty
    agent_version: SemVer
    model: ModelInfo
    system_prompt_hash: Sha256 | None = None
    tools_loaded: list[ToolBinding] = Field(default_factory=list)


class CapsuleRun(SpecModel):
    """Run-level metadata recorded in a capsule."""

    run_id: NonEmpty
    started_at: Timestamp
    ended_at: Timestamp
    status: RunStatus
    triggered_by: RunTrigger | None = None
    parent_run_id: StrictStr | None = None
    goal: Annotated[StrictStr, Field(max_length=2048)] | None = None
    tags: Annotated[list[StrictStr], UniqueList] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ordered(self) -> CapsuleRun:
        _check_order(self.started_at, self.ended_at, "the run")
        return self


class CapsuleEnvironment(SpecModel):
    """Runtime environment snapshot."""

    aumai_runtime_version: SemVer
    python_version: SemVer
    os: StrictStr | None = None
    container_image: StrictStr | None = None
    sandbox_tier: SandboxTier | None = None
    network_policy: EgressMode | None = None
    extra: dict[str, StrictStr] = Field(default_factory=dict)


class CapsuleOutcome(SpecModel):
    """Final result and aggregate statistics for a run. `total_tokens` counts input, output and
    total only (the schema has no cache fields there)."""

    NULLABLE: ClassVar[frozenset[str]] = frozenset({"final_answer"})

    final_answer: StrictStr | dict[str, Any] | None
    structured_output: dict[str, Any] | None = None
    total_tokens: TokenUsage | None = None
    total_cost_usd: Usd | None = None
    total_steps: Count | None = None
    total_tool_calls: Count | None = None
    errors_encountered: list[ErrorCode] = Field(default_factory=list)
    goal_achieved: StrictBool | None = None
    confidence_score: Annotated[Number, Field(ge=0.0, le=1.0)] | None = None

    @model_validator(mode="after")
    def _totals_without_cache(self) -> CapsuleOutcome:
        given = self.total_tokens.model_fields_set if self.total_tokens is not None else set()
        if given & CACHE_FIELDS:
            raise ValueError("outcome total_tokens counts input_tokens, output_tokens and "
                             "total_tokens only")
        return self

    @field_serializer("total_tokens", mode="wrap")
    def _totals(self, value: TokenUsage | None, handler: Any) -> Any:
        data = handler(value)
        return {k: v for k, v in data.items() if k not in CACHE_FIELDS} if data else data


class CapsuleIntegrity(SpecModel):
    """Cryptographic integrity metadata."""

    capsule_hash: Sha256 | None = None
    signature: StrictStr | None = None
    signing_key_id: StrictStr | None = None


class RunCapsule(SpecModel):
    """Immutable record of a complete agent execution."""

    capsule_id: Annotated[StrictStr, Field(pattern=r"^capsule_[a-zA-Z0-9]{26}$")]
    schema_version: Literal["1.0.0"]
    created_at: Timestamp
    agent: CapsuleAgent
    run: CapsuleRun
    execution_trace: list[CapsuleStep] = Field(default_factory=list)
    environment: CapsuleEnvironment
    outcome: CapsuleOutcome
    integrity: CapsuleIntegrity = Field(default_factory=CapsuleIntegrity)

    @model_validator(mode="after")
    def _contiguous(self) -> RunCapsule:
        for position, step in enumerate(self.execution_trace):
            if step.step_index != position:
                raise ValueError(f"Execution trace step at position {position} has "
                                 f"step_index={step.step_index}. Indices must be contiguous "
                                 f"and zero-based.")
        return self
