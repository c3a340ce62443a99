"""Own checks of a valid document beyond its schema: an agent's `accepts.payload_schema` must be
a JSON Schema whose refs resolve inside it, whose patterns run in linear time and whose refs
never loop on one value; a schema whose check cost cannot be bounded is a warning.

Per document, no other file looked at. Documents of the other kinds have no such checks.
"""

from __future__ import annotations

from typing import Any

from engine.config.codes import issue
from engine.config.members import Payload
from engine.config.positions import Document, PathKey, json_path
from engine.issues import Issue
from engine.validation.audit import schema_findings
from engine.validation.cost import cost_findings
from engine.validation.metaschema import schema_error

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
    return [(_FINDING_CODES[finding.kind], finding.path, finding.message) for finding in findings]


def no_issues(document: Document) -> list[Issue]:
    return []


OWN_ISSUES: dict[str, Payload] = {
    "agents": payload_schema_issues, "capabilities": no_issues, "routing": no_issues
}
"""The own checks of each document kind of a set."""
