"""Own checks of a valid document beyond its schema: an agent gives each runtime setting under one
spelling only, and its `accepts.payload_schema` must be
a JSON Schema whose refs resolve inside it, whose patterns run in linear time and whose refs
never loop on one value; a schema whose check cost cannot be bounded is a warning.

Per document, no other file looked at. Documents of the other kinds have no such checks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.config.agent_runtime import spelling_conflicts
from engine.config.codes import issue
from engine.config.positions import Document, PathKey, json_path
from engine.issues import Issue
from engine.validation.audit import schema_findings
from engine.validation.cost import cost_findings
from engine.validation.metaschema import schema_error

Payload = Callable[[Document], list[Issue]]
"""The own checks of one document kind: the problems a valid document still has."""
_FINDING_CODES = {"ref": "schema-ref", "pattern": "unsupported-pattern", "loop": "schema-loop",
                  "cost": "schema-cost"}


def payload_schema_issues(document: Document) -> list[Issue]:
    """`accepts.payload_schema` of an agent document must be a valid JSON Schema whose refs
    resolve inside it, whose patterns run in linear time and whose refs never loop on one
    value; one whose check cost cannot be bounded is a warning (`schema-cost`)."""
    schema = document.data.get("accepts", {}).get("payload_schema")
    if schema is None:
        return []
    base = ("accepts", "payload_schema")
    found = [(code, (*base, *where), message) for code, where, message in _schema_problems(schema)]
    return [
        issue(document.file, document.locate(path), json_path(path), code, message)
        for code, path, message in found
    ]


def _schema_problems(schema: Any) -> list[tuple[str, PathKey, str]]:
    if schema is False:
        message = ("`false` refuses every payload, so a call of this agent's handoff tool could "
                   "never succeed; to let no agent hand off here, write `accepts.from: []`")
        return [("invalid-payload-schema", (), message)]
    error = schema_error(schema)
    if error is not None:
        return [("invalid-payload-schema", error[0], f"not a valid JSON Schema: {error[1]}")]
    findings = schema_findings(schema) or cost_findings(schema)
    found = [(_FINDING_CODES[finding.kind], finding.path, finding.message) for finding in findings]
    return _not_an_object(schema) + found


ROOT_ALTERNATIVES = ("anyOf", "oneOf", "allOf", "not", "enum", "const")
"""Keywords that make a schema's top level something other than a plain object schema."""


def _not_an_object(schema: Any) -> list[tuple[str, PathKey, str]]:
    """A handoff tool's parameters are the payload schema, and model APIs take only an object
    schema there (`type: object`, no alternatives at the top level): they refuse the tool
    otherwise, so the handoff could never be called."""
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type", "object")
    if kind != "object":
        message = (f"the top level has type {kind!r}, but a handoff tool's parameters must be "
                   "an object schema (`type: object`): model APIs refuse the tool; put the value "
                   "under a property")
        return [("payload-not-object", ("type",), message)]
    found = [key for key in ROOT_ALTERNATIVES if key in schema]
    if not found:
        return []
    message = (f"`{found[0]}` at the top level: model APIs take only a plain object schema as a "
               "handoff tool's parameters and refuse the tool; write `type: object` with "
               f"`properties`, and move the `{found[0]}` under a property")
    return [("payload-not-object", (found[0],), message)]


def no_issues(document: Document) -> list[Issue]:
    return []


def agent_issues(document: Document) -> list[Issue]:
    """An agent document's own checks: a setting given under two spellings (`tools` and
    `tool_names`: which one the runtime gets is the author's to say), then its payload
    schema."""
    repeated = [
        issue(document.file, document.locate((key,), key=True), json_path((key,)),
              "conflicting-key", message)
        for key, message in spelling_conflicts(document.data)
    ]
    return repeated + payload_schema_issues(document)


OWN_ISSUES: dict[str, Payload] = {
    "agents": agent_issues, "capabilities": no_issues, "routing": no_issues
}
"""The own checks of each document kind of a set."""
