"""Listener payload schemas (pydantic models or an inline JSON Schema) and their validation.
It returns the payload a handler receives or says why not; it knows nothing of routing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, Union

import jsonschema
from pydantic import BaseModel, TypeAdapter, ValidationError

from engine.validation.audit import schema_findings
from engine.validation.checker import SchemaCheck
from engine.validation.cost import cost_findings
from engine.validation.metaschema import schema_error

_MAX_REASONS = 5
MAX_NESTING = 64
"""How deep a payload may nest containers (mappings, lists, tuples, sets, pydantic models);
a deeper or cyclic payload is refused like an invalid one."""
_TOO_DEEP = f"payload nested deeper than {MAX_NESTING} levels (or in a cycle)"
_FLAT = frozenset({str, bytes, int, float, bool, type(None)})


class PayloadRejected(Exception):
    """A payload does not match its target's schema; `reason` says why (internal signal)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class PayloadSpec:
    """The accepted payload of one listener. Build with `of_model`, `of_json_schema` or `any`."""

    __slots__ = ("_adapter", "_models", "_schema", "_validator", "name")

    def __init__(
        self,
        name: str,
        *,
        models: tuple[type[BaseModel], ...] = (),
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self._models = models
        self._adapter: TypeAdapter[Any] | None = (
            TypeAdapter(Union[models]) if len(models) > 1 else None  # type: ignore[arg-type]  # noqa: UP007
        )
        self._schema = schema
        self._validator = None if schema is None else SchemaCheck(schema)

    @classmethod
    def of_model(cls, *models: type[BaseModel]) -> PayloadSpec:
        """One pydantic model, or several (the listener accepts any of them)."""
        return cls(" | ".join(m.__name__ for m in models), models=models)

    @classmethod
    def of_json_schema(cls, schema: dict[str, Any], *, default_name: str) -> PayloadSpec:
        """An inline JSON Schema (2020-12); raises `jsonschema.SchemaError` if it is invalid,
        has a `$ref` that leads outside it or loops on one value, or a pattern that cannot run
        in linear time."""
        error = schema_error(schema)
        findings = [] if error is not None else schema_findings(schema) or [
            finding for finding in cost_findings(schema) if finding.kind == "loop"]
        if error is not None or findings:
            raise jsonschema.SchemaError(error[1] if error is not None else findings[0].message)
        title = schema.get("title")
        return cls(title if isinstance(title, str) and title else default_name, schema=schema)

    @classmethod
    def any(cls) -> PayloadSpec:
        return cls("Any")

    @property
    def models(self) -> tuple[type[BaseModel], ...]:
        return self._models

    def json_schema(self) -> dict[str, Any]:
        """A fresh copy of the JSON Schema payloads must satisfy (`{}` accepts anything)."""
        if self._adapter is not None:
            return self._adapter.json_schema()
        if self._models:
            return self._models[0].model_json_schema()
        return copy.deepcopy(self._schema) if self._schema is not None else {}

    def type_name(self, payload: Any) -> str:
        """The payload type name todo watchers match on."""
        return self.name if isinstance(payload, dict) else type(payload).__name__

    def validate(self, value: Any) -> Any:
        """Return the payload the handler will receive, or raise PayloadRejected (also for a
        payload nested deeper than `MAX_NESTING` levels, or cyclic)."""
        if nested_deeper(value, MAX_NESTING):
            raise PayloadRejected(_TOO_DEEP)
        if self._models:
            return _validate_model(self._models, self._adapter, value, self.name)
        if self._validator is not None:
            data = _as_json_data(value)
            if data is not value and nested_deeper(data, MAX_NESTING):
                raise PayloadRejected(_TOO_DEEP)
            found = self._validator.check(data, most=_MAX_REASONS + 1)
            reasons = [_describe(e) for e in sorted(found.errors, key=lambda e: list(e.path))]
            if found.stopped is not None:
                reasons.append(f"checking it needs more than the work budget of {found.stopped} "
                               "units; send a smaller or simpler payload")
            if reasons:
                raise PayloadRejected(_join(reasons, more=found.more))
            return data
        return value


def _validate_model(
    models: tuple[type[BaseModel], ...], adapter: TypeAdapter[Any] | None, value: Any, name: str
) -> Any:
    if type(value) in models:
        return value
    if isinstance(value, BaseModel):
        raise PayloadRejected(f"expected a {name} payload, got {type(value).__name__}")
    try:
        if adapter is not None:
            if isinstance(value, (str, bytes)):
                return adapter.validate_json(value)
            return adapter.validate_python(value)
        if isinstance(value, (str, bytes)):
            return models[0].model_validate_json(value)
        return models[0].model_validate(value)
    except ValidationError as e:
        reasons = (
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
            for err in e.errors()
        )
        raise PayloadRejected(f"{name}: " + _join(reasons)) from e


def _as_json_data(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (str, bytes)):
        try:
            return json.loads(value)
        except ValueError as e:
            raise PayloadRejected(f"payload is not valid JSON: {e}") from e
        except RecursionError:  # the decoder's own guard: deeper than the interpreter allows
            raise PayloadRejected("payload is not valid JSON: nested too deeply") from None
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as e:
        raise PayloadRejected(f"payload is not JSON data: {e}") from e


def nested_deeper(value: Any, limit: int) -> bool:
    """True when `value` nests containers (mappings, lists, tuples, sets, pydantic models) more
    than `limit` levels deep, or in a cycle. Level by level, never recursive; stops at the
    first level past `limit`."""
    level, depth = [value], 0
    while level:
        below: list[Any] = []
        for item in level:
            if type(item) in _FLAT:
                continue
            if isinstance(item, Mapping):
                below += item.values()
            elif isinstance(item, (list, tuple, set, frozenset)):
                below += item
            elif isinstance(item, BaseModel):
                below += vars(item).values()
        if not below:
            return False
        depth += 1
        if depth > limit:
            return True
        level = below
    return False


def _describe(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.path)
    return f"/{where}: {error.message}" if where else error.message


def _join(reasons: Any, *, more: bool = False) -> str:
    """At most `_MAX_REASONS` reasons, then how many more (`more`: an uncounted rest)."""
    items = list(reasons)
    shown = "; ".join(items[:_MAX_REASONS])
    if more:
        return f"{shown}; and more"
    rest = len(items) - _MAX_REASONS
    return f"{shown}; and {rest} more" if rest > 0 else shown
