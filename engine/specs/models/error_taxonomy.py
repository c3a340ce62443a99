"""Schema `agent_error_taxonomy_v1`: the catalogue (`AgentErrorTaxonomy` of
`TaxonomyCategory` of `TaxonomyErrorEntry`) and one runtime error (`AgentError`, the
schema's `error_instance`). Cross-field rules: an error's `category` matches the hundreds digit
of its `code`; a category's codes start with its `code_prefix`; no code twice in a catalogue."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr, model_validator

from engine.specs.models.common import Integer, SemVer, SpecModel, StrictBool, Timestamp
from engine.specs.models.enums import ErrorCategory, RetryStrategy, SeverityLevel

CATEGORY_BY_HUNDREDS: dict[int, ErrorCategory] = {
    1: ErrorCategory.PLANNING,
    2: ErrorCategory.TOOL_EXECUTION,
    3: ErrorCategory.CONTEXT,
    4: ErrorCategory.SECURITY,
    5: ErrorCategory.RESOURCE,
    6: ErrorCategory.ORCHESTRATION,
}
ErrorCode = Annotated[Integer, Field(ge=100, le=699)]


def category_for(code: int) -> ErrorCategory:
    """The category an error code belongs to (its hundreds digit)."""
    return CATEGORY_BY_HUNDREDS[code // 100]


class AgentError(SpecModel):
    """A single structured error instance emitted by an agent at runtime."""

    code: ErrorCode
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
            raise ValueError(f"Code {self.code} belongs to category '{expected.value}' "
                             f"but category '{self.category.value}' was provided.")
        return self


class TaxonomyErrorEntry(SpecModel):
    """One error code of the catalogue."""

    code: ErrorCode
    name: Annotated[StrictStr, Field(pattern=r"^[A-Z][A-Z0-9_]+$")]
    description: Annotated[StrictStr, Field(min_length=1, max_length=512)]
    severity: SeverityLevel
    recoverable: StrictBool
    retry_strategy: RetryStrategy = RetryStrategy.NONE
    example_message: Annotated[StrictStr, Field(max_length=256)] | None = None


class TaxonomyCategory(SpecModel):
    """A category of the catalogue and its error codes."""

    category_name: Annotated[StrictStr, Field(min_length=1)]
    code_prefix: Annotated[Integer, Field(ge=1, le=6)]
    description: Annotated[StrictStr, Field(min_length=1)]
    errors: Annotated[list[TaxonomyErrorEntry], Field(min_length=1)]

    @model_validator(mode="after")
    def _codes_match_prefix(self) -> TaxonomyCategory:
        for entry in self.errors:
            if entry.code // 100 != self.code_prefix:
                raise ValueError(f"Error code {entry.code} does not match category prefix "
                                 f"{self.code_prefix}xx.")
        return self


class AgentErrorTaxonomy(SpecModel):
    """The catalogue: every error code an agent platform defines, by category."""

    taxonomy_version: SemVer
    categories: Annotated[list[TaxonomyCategory], Field(min_length=1)]

    @model_validator(mode="after")
    def _no_duplicate_codes(self) -> AgentErrorTaxonomy:
        seen: set[int] = set()
        for category in self.categories:
            for entry in category.errors:
                if entry.code in seen:
                    raise ValueError(f"Duplicate error code {entry.code} found in taxonomy.")
                seen.add(entry.code)
        return self

    def entry(self, code: int) -> TaxonomyErrorEntry | None:
        """The catalogue entry of `code`, or None."""
        return next((entry for category in self.categories for entry in category.errors
                     if entry.code == code), None)
