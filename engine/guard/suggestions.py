"""Fix suggestions for failed fields, keyed by pydantic error type or JSON Schema keyword.

A table, not logic: add a row to teach the guard a new suggestion. Never validates anything.
"""

from __future__ import annotations

PYDANTIC_SUGGESTIONS: dict[str, str] = {
    "missing": "Add '{field}' to the {contract} data",
    "string_type": "Convert '{field}' to string",
    "int_type": "Convert '{field}' to integer",
    "int_parsing": "Convert '{field}' to integer",
    "float_type": "Convert '{field}' to a number",
    "float_parsing": "Convert '{field}' to a number",
    "bool_type": "Set '{field}' to true or false",
    "bool_parsing": "Set '{field}' to true or false",
    "list_type": "Make '{field}' a list",
    "dict_type": "Make '{field}' an object (dict)",
    "model_type": "Return an object (dict) for '{field}'",
    "model_attributes_type": "Return an object (dict) for '{field}'",
    "string_too_short": "Increase the length of '{field}'",
    "string_too_long": "Reduce the length of '{field}'",
    "too_short": "Add more items to '{field}'",
    "too_long": "Reduce the number of items in '{field}'",
    "greater_than": "Increase the value of '{field}'",
    "greater_than_equal": "Increase the value of '{field}'",
    "less_than": "Decrease the value of '{field}'",
    "less_than_equal": "Decrease the value of '{field}'",
    "string_pattern_mismatch": "'{field}' does not match the required pattern",
    "literal_error": "Use one of the allowed values for '{field}'",
    "enum": "Use one of the allowed values for '{field}'",
    "extra_forbidden": "Remove '{field}': it is not part of the {contract} contract",
    "datetime_parsing": "Write '{field}' as an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z",
    "datetime_from_date_parsing": "Write '{field}' as an ISO 8601 date-time",
    "url_parsing": "Write '{field}' as an absolute URL, e.g. https://example.com/x",
    "value_error": "Fix '{field}': {contract} data breaks a rule between fields",
}

SCHEMA_SUGGESTIONS: dict[str, str] = {
    "required": "Add '{field}' to the {contract} data",
    "dependentRequired": "Add '{field}' to the {contract} data",
    "type": "Change the type of '{field}'",
    "minLength": "Increase the length of '{field}'",
    "maxLength": "Reduce the length of '{field}'",
    "minItems": "Add more items to '{field}'",
    "maxItems": "Reduce the number of items in '{field}'",
    "minimum": "Increase the value of '{field}'",
    "exclusiveMinimum": "Increase the value of '{field}'",
    "maximum": "Decrease the value of '{field}'",
    "exclusiveMaximum": "Decrease the value of '{field}'",
    "pattern": "'{field}' does not match the required pattern",
    "enum": "Use one of the allowed values for '{field}'",
    "const": "Use the required value for '{field}'",
    "format": "Write '{field}' in the required format",
    "additionalProperties": "Remove properties from '{field}' that the contract does not declare",
    "unevaluatedProperties": "Remove properties from '{field}' that the contract does not declare",
    "uniqueItems": "Remove duplicate items from '{field}'",
}

_TABLES = {"pydantic": PYDANTIC_SUGGESTIONS, "schema": SCHEMA_SUGGESTIONS}


def suggest(kind: str, error_type: str, field_path: str, contract_type: str) -> str | None:
    """A one-line fix for `error_type` at `field_path`, or None when there is no good advice.

    `kind` is "pydantic" (error types such as `missing`) or "schema" (JSON Schema keywords).
    """
    template = _TABLES[kind].get(error_type)
    if template is None:
        return None
    return template.format(field=field_path, contract=contract_type)
