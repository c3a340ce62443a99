"""`$ref` resolution for user-written schemas: inside the same schema, or not at all.

Validators get `LOCAL_ONLY`, a `referencing.Registry` whose retrieve refuses every URI, so
a `$ref` never opens a socket or a file. `resolve_ref` says ahead of time where a ref leads,
so a config check can report the ones that lead outside the schema or nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

if TYPE_CHECKING:  # the class is public through Registry.resolver(), not by name
    from referencing._core import Resolver


# referencing's classes are attrs classes whose generated __init__ mypy does not see.


def _refuse(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


LOCAL_ONLY: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
"""A registry that retrieves nothing: only resources already inside it resolve."""

Verdict = Literal["ok", "external", "dangling"]


@dataclass(frozen=True, slots=True)
class RefTarget:
    """Where one `$ref` leads: `verdict` and, when it resolved, the subschema it names."""

    verdict: Verdict
    contents: Any = None


def root_resolver(schema: Any) -> tuple[Resolver[Any], list[str]]:
    """A resolver for `schema` alone, and the list it appends every URI it was asked to fetch."""
    asked: list[str] = []

    def refuse(uri: str) -> Resource[Any]:
        asked.append(uri)
        raise NoSuchResource(ref=uri)  # type: ignore[call-arg]

    registry: Registry[Any] = Registry(retrieve=refuse)  # type: ignore[call-arg]
    return registry.resolver_with_root(DRAFT202012.create_resource(schema)), asked


def enter(resolver: Resolver[Any], node: Any) -> Resolver[Any]:
    """The resolver inside `node`: a subschema with its own `$id` is a new base URI."""
    if isinstance(node, dict) and isinstance(node.get("$id"), str):
        return resolver.in_subresource(DRAFT202012.create_resource(node))
    return resolver


def resolve_ref(resolver: Resolver[Any], asked: list[str], ref: str) -> RefTarget:
    """Resolve `ref` without fetching: "external" when only a retrieval could answer it."""
    before = len(asked)
    try:
        resolved = resolver.lookup(ref)
    except Unresolvable:
        return RefTarget("external" if len(asked) > before else "dangling")
    return RefTarget("ok", resolved.contents)
