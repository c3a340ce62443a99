"""Validate stage: a parsed `Document` against a bundled JSON Schema, every error located.

Each jsonschema error becomes an Issue at the file:line:col of the offending node (the key
itself for unknown keys, with the nearest valid key suggested). It never changes the data.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.config.codes import issue
from engine.config.positions import Document, json_path
from engine.config.schemas import fast_check_for, validator_for
from engine.issues import Issue, sort_key

if TYPE_CHECKING:  # jsonschema is imported only when a document is invalid
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_CODE_BY_KEYWORD = {
    "required": "required",
    "type": "type",
    "enum": "enum",
    "const": "enum",
    "format": "format",
}


def validate_document(
    document: Document, schema: str, *, validator: Validator | None = None
) -> list[Issue]:
    """Every schema error of `document` against bundled `schema` (or the `validator` given),
    located; [] when it is valid. A bundled schema first asks its compiled check: a valid
    document never walks the pure validator."""
    if validator is None:
        fast = fast_check_for(schema)
        if fast is not None and fast(document.data):
            return []
    checker = validator or validator_for(schema)
    issues: list[Issue] = []
    for error in checker.iter_errors(document.data):
        issues.extend(_translate(document, error))
    return sorted(issues, key=sort_key)


def suggest(word: str, choices: Any) -> str:
    """` (did you mean 'peers'?)`-style hint, or "" when nothing is close."""
    close = difflib.get_close_matches(word, [str(choice) for choice in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _translate(document: Document, error: ValidationError) -> Iterator[Issue]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties":
        yield from _unknown_keys(document, error, path)
        return
    if error.validator in ("anyOf", "oneOf") and error.context:
        inside = _errors_of_its_kind(error)
        if inside:  # an array where an array is one choice: what is wrong inside it
            for inner in inside:
                yield from _translate(document, inner)
            return
        message = f"{_short(error.instance)} is not valid here: expected {_alternatives(error)}"
        yield issue(document.file, document.locate(path), json_path(path), "schema", message)
        return
    if error.validator == "propertyNames" or "propertyNames" in error.schema_path:
        key = str(error.instance)
        where = document.locate((*path, key), key=True)
        yield issue(document.file, where, json_path((*path, key)), "schema", error.message)
        return
    code = _CODE_BY_KEYWORD.get(str(error.validator), "schema")
    message = error.message
    if "dependentSchemas" in error.schema_path:
        code, message = "schema", _dependent_message(error, path)
    elif error.validator == "enum" and isinstance(error.instance, str):
        message += suggest(error.instance, error.validator_value)  # a const names its value
    elif error.validator == "type":
        message += _type_hint(path, error.instance)
    elif error.validator == "pattern" and isinstance(error.schema, dict):
        message = _pattern_message(error.instance, error.schema, message)
    elif error.validator == "maxLength" and isinstance(error.instance, str):
        message = (f"{_short(error.instance)} is {len(error.instance)} characters long, "
                   f"at most {error.validator_value} allowed")
    yield issue(document.file, document.locate(path), json_path(path), code, message)


def _pattern_message(instance: Any, schema: dict[str, Any], raw: str) -> str:
    """The validator's message, followed by what a value should look like in the words of
    the pattern's own `description` (a regex alone is not an explanation)."""
    described = schema.get("description")
    return f"{raw}: {described}" if isinstance(described, str) else raw


def _type_hint(path: tuple[Any, ...], instance: Any) -> str:
    """How to write what was meant, for type mistakes with one usual fix."""
    if path[-2:-1] == ("when",) and path[-1] == "keywords" and isinstance(instance, list):
        shown = ", ".join(str(item) for item in instance[:3])
        return (f"; keywords take {{any: [{shown}]}} (one of them is enough) or "
                f"{{all: [...]}} (every one needed)")
    return ""


def _key_hint(key: str, known: list[str]) -> str:
    """A hint for an unknown key: what it usually means here, else the closest known key."""
    if key == "agents" and "accepts" in known:
        return ("; an agent file holds one agent: put its name, description, ... at the top "
                "level, one file per agent")
    if key in ("condition", "conditions", "if", "match") and "when" in known:
        return "; a rule's conditions go under `when:` (tool, keywords, from, capabilities, ...)"
    return suggest(key, known)


def _unknown_keys(
    document: Document, error: ValidationError, path: tuple[Any, ...]
) -> Iterator[Issue]:
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = list(schema.get("properties", {}))
    instance = error.instance if isinstance(error.instance, dict) else {}
    for key in instance:
        if key in known:
            continue
        message = f"unknown key {key!r}{_key_hint(key, known)}"
        where = document.locate((*path, key), key=True)
        yield issue(document.file, where, json_path((*path, key)), "unknown-key", message)


def _dependent_message(error: ValidationError, path: tuple[Any, ...]) -> str:
    steps = list(error.schema_path)
    trigger = steps[steps.index("dependentSchemas") + 1]
    if error.validator == "const" and path:
        return f"{trigger!r} is only allowed when {path[-1]!s} is {error.validator_value!r}"
    return f"{trigger!r} needs more: {error.message}"


def _errors_of_its_kind(error: ValidationError) -> list[ValidationError]:
    """When exactly one branch of an anyOf/oneOf takes values of the instance's JSON type (an
    array where the choice is `'*'` or an array), that branch's own errors: a duplicate item
    or a wrong item is then named, not "expected '*' or an array" of an array. Else []."""
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    if any(isinstance(branch, dict) and "type" not in branch and "const" not in branch
           for branch in branches):
        return []  # a branch of no declared type (a $ref, say) may take the value too
    kinds = [branch.get("type") if isinstance(branch, dict) and "const" not in branch else None
             for branch in branches]
    from jsonschema import Draft202012Validator  # the bundled schemas' draft

    checker = Draft202012Validator.TYPE_CHECKER
    same = [index for index, kind in enumerate(kinds) if kind is not None and any(
        checker.is_type(error.instance, name) for name in _names(kind))]
    if len(same) != 1:
        return []
    return [inner for inner in error.context if inner.relative_schema_path[0] == same[0]]


def _names(kind: Any) -> list[str]:
    return [kind] if isinstance(kind, str) else [name for name in kind if isinstance(name, str)]


def _alternatives(error: ValidationError) -> str:
    """ "'*' or an array"-style summary of the branches of an anyOf/oneOf."""
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    names = []
    for branch in branches:
        if isinstance(branch, dict) and "const" in branch:
            names.append(repr(branch["const"]))
        elif isinstance(branch, dict) and "type" in branch:
            kind = branch["type"]
            names.append(f"an {kind}" if str(kind)[0] in "aeiou" else f"a {kind}")
    if not names and error.context:
        from jsonschema.exceptions import best_match

        return str(best_match(error.context).message)
    return " or ".join(names)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
