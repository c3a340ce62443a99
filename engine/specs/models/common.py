"""Building blocks shared by the canonical-spec models: the base model and the value types
whose checks agree exactly with the bundled JSON Schemas.

Patterns run on Python's `re` (as jsonschema's do) and `date-time` is checked by the same
function the spec validator uses, so a document is never valid for one side and invalid for
the other. Never reads files.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar

from jsonschema import Draft202012Validator
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictInt,
    model_serializer,
)
from pydantic import StrictBool as StrictBool
from pydantic import StrictStr as StrictStr

_FORMATS = Draft202012Validator.FORMAT_CHECKER

SEMVER_PATTERN = r"^\d+\.\d+\.\d+$"
SHA256_PATTERN = r"^sha256:[a-f0-9]{64}$"
TOOL_NAME_PATTERN = r"^[a-zA-Z][a-zA-Z0-9_\-\.]*$"
_DATE_TIME = re.compile(
    r"^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}:[0-9]{2})(:[0-9]{2}(\.[0-9]{1,6})?)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})?$"
)


class SpecModel(BaseModel):
    """Base of every spec model: fields cannot be reassigned, unknown fields are rejected (as
    in the schemas), and a dump leaves out `None` fields the schema has no `null` for, so
    `validate(model.model_dump(mode="json"), name)` holds for every valid model."""

    model_config = ConfigDict(frozen=True, extra="forbid", regex_engine="python-re")
    NULLABLE: ClassVar[frozenset[str]] = frozenset()
    """Fields whose `None` the schema accepts as `null` (kept in dumps)."""

    @model_serializer(mode="wrap")
    def _omit_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        return {key: value for key, value in data.items()
                if value is not None or key in self.NULLABLE}


def parse_date_time(value: str) -> datetime | None:
    """An ISO 8601 date and time (seconds, fraction and offset optional; no offset reads as
    given), or None when `value` is not one. The spec schemas' `date-time` means this."""
    match = _DATE_TIME.match(value)
    if match is None:
        return None
    date, minutes, seconds, fraction, offset = match.groups()
    seconds = seconds[:3] if seconds else ":00"
    digits = (fraction or ".")[1:].ljust(6, "0")
    zone = "+00:00" if offset in ("Z", "z") else (offset or "")
    try:
        return datetime.fromisoformat(f"{date}T{minutes}{seconds}.{digits}{zone}")
    except ValueError:
        return None


def _date_time(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    parsed = parse_date_time(value) if isinstance(value, str) else None
    if parsed is None:
        raise ValueError(f"{value!r} is not an ISO 8601 date-time")
    return parsed


def _format_check(name: str) -> Any:
    def check(value: Any) -> Any:
        if isinstance(value, str) and not _FORMATS.conforms(value, name):
            raise ValueError(f"{value!r} is not a valid {name}")
        return value

    return check


def _json_integer(value: Any) -> Any:
    """JSON Schema's `integer`: whole numbers, including 5.0, but never a boolean."""
    if isinstance(value, bool):
        raise ValueError("expected an integer, not a boolean")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _unique(values: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for value in values:
        if value in seen:
            raise ValueError(f"{value!r} appears more than once")
        seen.append(value)
    return values


Integer = Annotated[StrictInt, BeforeValidator(_json_integer)]
"""An integer as JSON Schema counts one: 5 and 5.0 pass; "5", 5.5 and true do not."""

Number = Annotated[float, Field(strict=True)]
"""A JSON number: an int or a float, never a string or a boolean."""

Timestamp = Annotated[datetime, BeforeValidator(_date_time)]
"""A datetime, or an ISO 8601 date-time string (`format: date-time`); naive ones allowed."""

Uri = Annotated[StrictStr, AfterValidator(_format_check("uri"))]
"""An absolute URI (`format: uri`)."""

SemVer = Annotated[StrictStr, Field(pattern=SEMVER_PATTERN)]
Sha256 = Annotated[StrictStr, Field(pattern=SHA256_PATTERN)]
NonEmpty = Annotated[StrictStr, Field(min_length=1)]
UniqueList = AfterValidator(_unique)
"""`uniqueItems: true` for a list field: `Annotated[list[X], UniqueList]`."""
