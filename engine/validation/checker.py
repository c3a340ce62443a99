"""One user-written schema ready for bounded checks: the compiled "valid?" where its cost allows,
else (and to word a "no") the bounded pure validator, all within one work budget per check.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jsonschema.protocols import Validator

from engine.validation.bounded import Located, bounded, locate
from engine.validation.budget import BASE_UNITS, BudgetExceeded, spending
from engine.validation.cost import schema_cost
from engine.validation.payload_compiled import compile_payload_check
from engine.validation.refs import LOCAL_ONLY
from engine.validation.validators import SAFE_FORMATS, SafeValidator

VALID = Located()


@cache
def _bounded(base: type[Validator]) -> type[Validator]:
    return bounded(base)


class SchemaCheck:
    """Checks values against one schema (that passed `schema_findings` and has no `loop`);
    `base` is the pure validator class to bound. After a compiled "no", the pure validator
    words and locates the errors within `BASE_UNITS`; past that, the compiled checker does, in
    its own words."""

    __slots__ = ("_fast", "_validator", "cost")

    def __init__(self, schema: Any, *, base: type[Validator] = SafeValidator) -> None:
        self.cost = schema_cost(schema)
        self._fast = compile_payload_check(schema) if self.cost.bounded else None
        self._validator = _bounded(base)(schema, registry=LOCAL_ONLY, format_checker=SAFE_FORMATS)

    @property
    def compiled(self) -> bool:
        """Whether valid values are answered by the compiled check."""
        return self._fast is not None

    def check(self, value: Any, *, most: int) -> Located:
        """What is wrong with `value`: nothing (`VALID`), or up to `most` located errors, or
        the budget the check ran out of."""
        with spending(value) as budget:
            verdict = None
            try:
                verdict = self._fast.valid(value) if self._fast is not None else None
            except BudgetExceeded as exceeded:
                return Located(stopped=exceeded.limit)
            if verdict:
                return VALID
            if verdict is False:
                budget.cap(BASE_UNITS)
            found = locate(self._validator, value, most=most)
        if found.stopped is None or found.errors or verdict is not False:
            return found
        errors = self._fast.errors(value, most=most) if self._fast is not None else None
        return Located(tuple(errors), more=len(errors) == most) if errors else found
