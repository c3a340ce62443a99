"""Building blocks shared by the canonical-spec models: the strict base model and the
string types whose checks must agree exactly with the JSON Schema `format` checker.

Value checks here call the same format checker `jsonschema` uses, so a document is never
valid for one side and invalid for the other.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from jsonschema import Draft202012Validator
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
)
from pydantic import StrictBool as StrictBool
from pydantic import StrictStr as StrictStr

_FORMATS = Draft202012Validator.FORMAT_CHECKER

SEMVER_PATTERN = (
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$"
)
NAME_PATTERN = r"^[a-zA-Z][a-zA-Z0-9_\-\.]*$"


class SpecModel(BaseModel):
    """Base of every spec model: immutable, unknown fields rejected (as in the schemas)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


def _format_check(name: str) -> Any:
    def check(value: Any) -> Any:
        if isinstance(value, str) and not _FORMATS.conforms(value, name):
            raise ValueError(f"{value!r} is not a valid {name}")
        return value

    return check


def _rfc3339_only(value: Any) -> Any:
    """Accept datetimes and RFC 3339 strings only (no timestamps, no bare dates)."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError("expected an RFC 3339 date-time string")
    return _format_check("date-time")(value)


def _json_integer(value: Any) -> Any:
    """JSON Schema's `integer`: whole numbers, including 5.0, but never a boolean."""
    if isinstance(value, bool):
        raise ValueError("expected an integer, not a boolean")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integer = Annotated[StrictInt, BeforeValidator(_json_integer)]
"""An integer as JSON Schema counts one: 5 and 5.0 pass; "5", 5.5 and true do not."""

Timestamp = Annotated[AwareDatetime, BeforeValidator(_rfc3339_only)]
"""An RFC 3339 date-time with an offset (`format: date-time`)."""

Uri = Annotated[StrictStr, AfterValidator(_format_check("uri"))]
"""An absolute URI (`format: uri`)."""

Hostname = Annotated[StrictStr, AfterValidator(_format_check("hostname"))]
"""A DNS host name (`format: hostname`)."""

SemVer = Annotated[StrictStr, Field(pattern=SEMVER_PATTERN)]
ToolName = Annotated[StrictStr, Field(pattern=NAME_PATTERN)]
Number = Annotated[float, Field(strict=True)]
