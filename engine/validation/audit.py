"""Ahead-of-time checks of a user-written JSON Schema, each finding located by its path.

Every `$ref` must resolve inside the schema itself (never fetched), and every pattern must
compile for the linear-time engine and only ever run there. Walks only schema positions, so
a property named `$ref` or `pattern` is data, not a keyword. It never validates instances.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from engine.validation.patterns import PatternError, compile_pattern

if TYPE_CHECKING:
    from referencing._core import Resolver

    from engine.validation.refs import RefTarget

Path = tuple[str | int, ...]
Kind = Literal["ref", "pattern", "loop", "cost"]

_ONE = ("additionalProperties", "items", "contains", "propertyNames", "not", "if", "then",
        "else", "unevaluatedItems", "unevaluatedProperties", "additionalItems")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem of a schema: `path` to the keyword inside the schema, what kind, why."""

    path: Path
    kind: Kind
    message: str


def _children(node: dict[str, Any], path: Path) -> Iterator[tuple[Path, Any]]:
    """The subschemas directly inside `node`, in the order its keys were written."""
    for key, value in node.items():
        if key in _ONE:
            yield (*path, key), value
        elif key in _LIST and isinstance(value, list):
            yield from (((*path, key, index), item) for index, item in enumerate(value))
        elif key in _MAP and isinstance(value, dict):
            yield from (((*path, key, name), item) for name, item in value.items())


def _positions(
    schema: Any, resolver: Resolver[Any] | None
) -> Iterator[tuple[Path, dict[str, Any], Resolver[Any] | None]]:
    """Every subschema that is an object, with its path and the resolver in scope there
    (None throughout for a schema without refs)."""
    stack: list[tuple[Path, Any, Resolver[Any] | None]] = [((), schema, resolver)]
    while stack:
        path, node, scope = stack.pop()
        if not isinstance(node, dict):
            continue
        if scope is not None:
            from engine.validation.refs import enter  # only for a schema with refs

            scope = enter(scope, node)
        yield path, node, scope
        stack.extend((child, item, scope) for child, item in reversed(list(_children(node, path))))


def every_mapping(schema: Any) -> Iterator[dict[str, Any]]:
    """Every mapping anywhere inside `schema` (data included), without recursion."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _mentions_refs(schema: Any) -> bool:
    """Whether a `$ref` or `$dynamicRef` key appears anywhere (data included: a cheap upper
    bound that spares schemas without refs the resolver)."""
    return any("$ref" in node or "$dynamicRef" in node for node in every_mapping(schema))


class SchemaWalk:
    """Every object subschema of a schema, depth first, with its path and the resolver in scope
    there; `target` says where a `$ref` written at a position leads (never fetched)."""

    def __init__(self, schema: Any) -> None:
        resolver: Resolver[Any] | None = None
        self._asked: list[str] = []
        if _mentions_refs(schema):
            from engine.validation.refs import root_resolver  # `referencing` only when needed

            resolver, self._asked = root_resolver(schema)
        self.positions = list(_positions(schema, resolver))

    def target(self, scope: Resolver[Any], ref: str) -> RefTarget:
        from engine.validation.refs import resolve_ref

        return resolve_ref(scope, self._asked, ref)


def schema_findings(schema: Any) -> list[Finding]:
    """Every ref and pattern problem of `schema` (one that passed meta-validation), depth
    first; [] when it is safe to compile."""
    walk = SchemaWalk(schema)
    subschemas = {id(node) for _, node, _ in walk.positions}
    uses_unevaluated = any("unevaluatedProperties" in node for _, node, _ in walk.positions)
    findings: list[Finding] = []
    for path, node, scope in walk.positions:
        for keyword in ("$ref", "$dynamicRef"):
            if scope is not None and isinstance(node.get(keyword), str):
                findings += _ref_finding(walk, (*path, keyword), node[keyword], scope, subschemas)
        findings += _pattern_findings(path, node, uses_unevaluated)
    return findings


def _ref_finding(
    walk: SchemaWalk, path: Path, ref: str, scope: Resolver[Any], subschemas: set[int]
) -> list[Finding]:
    target = walk.target(scope, ref)
    if target.verdict == "external":
        why = "leads outside this schema; refs are resolved inside it only, never fetched"
    elif target.verdict == "dangling":
        why = "points at nothing in this schema"
    elif isinstance(target.contents, bool) or id(target.contents) in subschemas:
        return []
    else:
        why = "points at data that is not a subschema"
    return [Finding(path, "ref", f"$ref {ref!r} {why}")]


def _pattern_findings(path: Path, node: dict[str, Any], uses_unevaluated: bool) -> list[Finding]:
    found: list[tuple[Path, str]] = []
    if isinstance(node.get("pattern"), str):
        found.append(((*path, "pattern"), node["pattern"]))
    if isinstance(node.get("patternProperties"), dict):
        found += [((*path, "patternProperties", key), key) for key in node["patternProperties"]]
    findings = []
    for where, pattern in found:
        try:
            compile_pattern(pattern)
        except PatternError as error:
            engine = "the linear-time regex engine (RE2)"
            message = f"pattern {pattern!r} is refused by {engine}: {error.reason}"
            findings.append(Finding(where, "pattern", message))
            continue
        if uses_unevaluated and where[-2:-1] == ("patternProperties",):
            message = (
                f"pattern {pattern!r}: patternProperties together with unevaluatedProperties "
                "would be matched by a backtracking engine; use additionalProperties instead"
            )
            findings.append(Finding(where, "pattern", message))
    return findings
