"""`AgentError` (schema `agent_error_taxonomy_v1`), with its cross-field rule: `category`
matches the hundreds digit of `code` (1xx planning ... 6xx orchestration)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import Integer, SpecModel, StrictBool, Timestamp
from engine.specs.models.enums import ErrorCategory, SeverityLevel

CATEGORY_BY_HUNDREDS: dict[int, ErrorCategory] = {
    1: ErrorCategory.PLANNING,
    2: ErrorCategory.TOOL_EXECUTION,
    3: ErrorCategory.CONTEXT,
    4: ErrorCategory.SECURITY,
    5: ErrorCategory.RESOURCE,
    6: ErrorCategory.ORCHESTRATION,
}


def category_for(code: int) -> ErrorCategory:
    """The category an error code belongs to (its hundreds digit)."""
    return CATEGORY_BY_HUNDREDS[code // 100]


class AgentError(SpecModel):
    code: Annotated[Integer, Field(ge=100, le=699)]
    category: ErrorCategory
    message: Annotated[StrictStr, Field(min_length=1, max_length=1024)]
    severity: SeverityLevel
    recoverable: StrictBool = True
    agent_id: StrictStr | None = None
    run_id: StrictStr | None = None
    step_index: Annotated[Integer, Field(ge=0)] | None = None
    timestamp: Timestamp | None = None
    context: dict[str, StrictStr] = Field(default_factory=dict)
    cause: Annotated[StrictStr, Field(max_length=2048)] | None = None
    retry_after_seconds: Annotated[Integer, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _category_matches_code(self) -> AgentError:
        expected = category_for(self.code)
        if self.category is not expected:
            raise ValueError(
                f"category {self.category.value!r} does not match code {self.code} "
                f"({self.code // 100}xx is {expected.value!r})"
            )
        return self
