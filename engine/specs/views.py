"""Read-only schema views, and the inline layout of a schema (every local `$ref` written out in
place, as the aumai-specs files had their nested schemas).

A view is built once per schema and layout and then handed to every caller: it is a real
`dict` (of real `list`s), so reading, comparing, `json.dumps` and jsonschema work as on the
parsed file, but every change is refused. `copy.deepcopy(view)` gives a plain, mutable copy.
"""

from __future__ import annotations

from typing import Any, NoReturn

MERGEABLE = frozenset({"description", "title", "examples", "default", "deprecated",
                       "$comment", "readOnly", "writeOnly", "$defs", "$schema"})
"""Keywords that annotate or hold definitions but check nothing: beside a `$ref` they can be
merged into the inlined target (any other keeps the two apart, under `allOf`)."""


def _refused(*args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(
        "a schema from load_schema is read-only: every caller shares it; "
        "copy.deepcopy(schema) gives a copy you can change"
    )


class ReadOnlyDict(dict[str, Any]):
    """A dict whose contents cannot change (see the module's docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refused
    clear = pop = popitem = setdefault = update = _refused

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: thawed(item) for key, item in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (thawed(self),))


class ReadOnlyList(list[Any]):
    """A list whose contents cannot change (see the module's docstring)."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refused
    append = extend = insert = pop = remove = clear = sort = reverse = _refused

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [thawed(item) for item in self]

    def __reduce__(self) -> Any:
        return (list, (thawed(self),))


def read_only(value: Any) -> Any:
    """A read-only deep copy of parsed JSON (dicts and lists become the read-only kinds)."""
    if isinstance(value, dict):
        view = ReadOnlyDict()
        for key, item in value.items():
            dict.__setitem__(view, key, read_only(item))
        return view
    if isinstance(value, list):
        return ReadOnlyList(read_only(item) for item in value)
    return value


def thawed(value: Any) -> Any:
    """Plain, mutable dicts and lists again."""
    if isinstance(value, dict):
        return {key: thawed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thawed(item) for item in value]
    return value


def inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each local `$ref` (`#/...`) replaced by what it points to, written out in
    place (its annotations, such as a `description` beside the `$ref`, kept over the
    target's). A `$ref` that leads back into its own expansion stays a `$ref`; `$defs` stay
    too, so pointers into them keep working. Validates exactly what `schema` does."""
    result: dict[str, Any] = _expand(schema, schema, ())
    return result


def _expand(node: Any, root: dict[str, Any], stack: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_expand(item, root, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/") and ref not in stack:
        target = _expand(_pointed(root, ref), root, (*stack, ref))
        rest = {key: _expand(value, root, stack) for key, value in node.items() if key != "$ref"}
        if isinstance(target, dict) and set(rest) <= MERGEABLE:
            return {**target, **rest}
        return {"allOf": [target], **rest}
    return {key: _expand(value, root, stack) for key, value in node.items()}


def _pointed(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    for step in ref[2:].split("/"):
        step = step.replace("~1", "/").replace("~0", "~")
        node = node[int(step)] if isinstance(node, list) else node[step]
    return node
