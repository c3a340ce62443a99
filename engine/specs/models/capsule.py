"""`RunCapsule` and its parts (schema `capsule_format_v1`). Cross-field rules: a step's
`ended_at` is not before its `started_at` (also for the run); `tool_name` only on
tool_call/tool_result steps; trace indices 0-based and contiguous; a failure outcome carries
an `error_code`. The schema holds every rule JSON Schema can express."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import Integer, Number, SpecModel, Timestamp
from engine.specs.models.enums import (
    Environment,
    ModelProvider,
    RunStatus,
    RunTrigger,
    SandboxTier,
    StepType,
)

ErrorCode = Annotated[Integer, Field(ge=100, le=699)]
TOOL_STEPS = frozenset({StepType.TOOL_CALL, StepType.TOOL_RESULT})


def _check_order(started_at: datetime, ended_at: datetime | None, what: str) -> None:
    if ended_at is not None and ended_at < started_at:
        raise ValueError(f"{what} ended_at {ended_at.isoformat()} is before started_at "
                         f"{started_at.isoformat()}")


class CapsuleAgent(SpecModel):
    agent_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    agent_name: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    agent_version: StrictStr | None = None
    model_provider: ModelProvider | None = None
    model: StrictStr | None = None


class CapsuleRun(SpecModel):
    run_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    trigger: RunTrigger
    started_at: Timestamp
    ended_at: Timestamp | None = None
    parent_run_id: StrictStr | None = None

    @model_validator(mode="after")
    def _ordered(self) -> CapsuleRun:
        _check_order(self.started_at, self.ended_at, "run")
        return self


class TokenUsage(SpecModel):
    input_tokens: Annotated[Integer, Field(ge=0)]
    output_tokens: Annotated[Integer, Field(ge=0)]
    cached_tokens: Annotated[Integer, Field(ge=0)] = 0


class StepCost(SpecModel):
    amount: Annotated[Number, Field(ge=0)]
    currency: Annotated[StrictStr, Field(pattern=r"^[A-Z]{3}$")] = "USD"


class CapsuleStep(SpecModel):
    step_index: Annotated[Integer, Field(ge=0)]
    step_type: StepType
    started_at: Timestamp
    ended_at: Timestamp
    duration_ms: Annotated[Integer, Field(ge=0)] | None = None
    tokens: TokenUsage | None = None
    cost: StepCost | None = None
    tool_name: StrictStr | None = None
    tool_call_id: StrictStr | None = None
    error_code: ErrorCode | None = None

    @model_validator(mode="after")
    def _consistent(self) -> CapsuleStep:
        _check_order(self.started_at, self.ended_at, f"step {self.step_index}")
        if self.tool_name is not None and self.step_type not in TOOL_STEPS:
            raise ValueError(f"tool_name is only valid on tool_call/tool_result steps, "
                             f"not {self.step_type.value!r}")
        return self


class CapsuleEnvironment(SpecModel):
    environment: Environment
    sandbox_tier: SandboxTier
    runtime: StrictStr | None = None
    region: StrictStr | None = None


class CapsuleOutcome(SpecModel):
    status: RunStatus
    summary: Annotated[StrictStr, Field(max_length=4096)] | None = None
    error_code: ErrorCode | None = None
    error_message: Annotated[StrictStr, Field(max_length=1024)] | None = None

    @model_validator(mode="after")
    def _failure_has_code(self) -> CapsuleOutcome:
        if self.status is RunStatus.FAILURE and self.error_code is None:
            raise ValueError("a failure outcome requires error_code")
        return self


class CapsuleIntegrity(SpecModel):
    algorithm: Literal["sha256"]
    digest: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]
    signed_by: StrictStr | None = None


class RunCapsule(SpecModel):
    capsule_id: Annotated[StrictStr, Field(pattern=r"^capsule_[A-Za-z0-9]{26}$")]
    schema_version: Literal["1.0.0"]
    created_at: Timestamp
    agent: CapsuleAgent
    run: CapsuleRun
    execution_trace: tuple[CapsuleStep, ...] = ()
    environment: CapsuleEnvironment
    outcome: CapsuleOutcome
    integrity: CapsuleIntegrity | None = None

    @model_validator(mode="after")
    def _contiguous(self) -> RunCapsule:
        for position, step in enumerate(self.execution_trace):
            if step.step_index != position:
                raise ValueError(f"execution_trace[{position}] has step_index "
                                 f"{step.step_index}; indices must be 0-based and contiguous")
        return self
